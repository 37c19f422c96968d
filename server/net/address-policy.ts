/**
 * Which addresses Mohar may connect to on behalf of untrusted input (URLs inside certificates, webhook
 * targets, document URLs): public unicast only. Loopback, private, link-local (incl. cloud metadata),
 * CGNAT, multicast, reserved and IPv4-mapped forms of them are refused unless the operator allows private
 * targets (offices on a LAN, tests).
 */
import { BlockList, isIP } from 'node:net';

const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
  ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blocked.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['2001:db8::', 32], ['64:ff9b::', 96], ['100::', 64],
] as const) blocked.addSubnet(network, prefix, 'ipv6');

/** IPv4-mapped IPv6 (::ffff:a.b.c.d) is judged as the IPv4 address it maps. */
function unmap(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return { address: mapped[1]!, family: 'ipv4' };
  return { address, family: isIP(address) === 6 ? 'ipv6' : 'ipv4' };
}

export function isPublicAddress(address: string): boolean {
  const { address: plain, family } = unmap(address);
  if (isIP(plain) === 0) return false;
  return !blocked.check(plain, family);
}
