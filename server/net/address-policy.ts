/**
 * Which addresses Mohar may connect to on behalf of untrusted input (URLs inside certificates, webhook
 * targets, document URLs): public unicast only. Loopback, private, link-local (incl. cloud metadata),
 * CGNAT, multicast, reserved and IPv4-mapped forms of them are refused unless the operator allows private
 * targets (offices on a LAN, tests). One policy for the whole server: every guard asks this file.
 */
import { BlockList, isIP } from 'node:net';

/** Why an address is not public, in words an error message can carry. */
export type AddressCategory =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'cloud metadata'
  | 'carrier-grade NAT'
  | 'multicast'
  | 'reserved'
  | 'documentation'
  | 'not an IP address';

const RANGES: readonly (readonly [string, number, 'ipv4' | 'ipv6', AddressCategory])[] = [
  ['0.0.0.0', 8, 'ipv4', 'unspecified'],
  ['10.0.0.0', 8, 'ipv4', 'private'],
  ['100.64.0.0', 10, 'ipv4', 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'ipv4', 'loopback'],
  ['169.254.169.254', 32, 'ipv4', 'cloud metadata'],
  ['169.254.0.0', 16, 'ipv4', 'link-local'],
  ['172.16.0.0', 12, 'ipv4', 'private'],
  ['192.0.0.0', 24, 'ipv4', 'reserved'],
  ['192.0.2.0', 24, 'ipv4', 'documentation'],
  ['192.88.99.0', 24, 'ipv4', 'reserved'],
  ['192.168.0.0', 16, 'ipv4', 'private'],
  ['198.18.0.0', 15, 'ipv4', 'reserved'],
  ['198.51.100.0', 24, 'ipv4', 'documentation'],
  ['203.0.113.0', 24, 'ipv4', 'documentation'],
  ['224.0.0.0', 4, 'ipv4', 'multicast'],
  ['240.0.0.0', 4, 'ipv4', 'reserved'],
  ['::', 128, 'ipv6', 'unspecified'],
  ['::1', 128, 'ipv6', 'loopback'],
  // IPv4-compatible (deprecated) and IPv4-translated forms could smuggle an IPv4 target.
  ['::', 96, 'ipv6', 'reserved'],
  ['::ffff:0:0:0', 96, 'ipv6', 'reserved'],
  ['64:ff9b::', 96, 'ipv6', 'reserved'],
  ['64:ff9b:1::', 48, 'ipv6', 'reserved'],
  ['100::', 64, 'ipv6', 'reserved'],
  ['2001::', 32, 'ipv6', 'reserved'],
  ['2001:2::', 48, 'ipv6', 'reserved'],
  ['2001:10::', 28, 'ipv6', 'reserved'],
  ['2001:db8::', 32, 'ipv6', 'documentation'],
  ['fd00:ec2::254', 128, 'ipv6', 'cloud metadata'],
  ['fc00::', 7, 'ipv6', 'private'],
  ['fe80::', 10, 'ipv6', 'link-local'],
  ['fec0::', 10, 'ipv6', 'private'],
  ['ff00::', 8, 'ipv6', 'multicast'],
];

// One list per category, checked in table order (the metadata address before link-local).
const lists = RANGES.map(([network, prefix, family, category]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, family);
  return { list, category };
});

/** IPv4-mapped IPv6 (::ffff:a.b.c.d) is judged as the IPv4 address it maps; so is 6to4 (2002:AABB:CCDD::/48). */
function unmap(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return { address: mapped[1]!, family: 'ipv4' };
  const sixToFour = /^2002:([0-9a-f]{1,4}):([0-9a-f]{1,4})(?::|$)/i.exec(address);
  if (sixToFour) {
    const high = parseInt(sixToFour[1]!, 16);
    const low = parseInt(sixToFour[2]!, 16);
    return { address: [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.'), family: 'ipv4' };
  }
  return { address, family: isIP(address) === 6 ? 'ipv6' : 'ipv4' };
}

/** null for a public unicast address, else why it is not one. */
export function classifyAddress(address: string): AddressCategory | null {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIP(bare) === 0) return 'not an IP address';
  const { address: plain, family } = unmap(bare);
  for (const { list, category } of lists) if (list.check(plain, family)) return category;
  return null;
}

export function isPublicAddress(address: string): boolean {
  return classifyAddress(address) === null;
}
