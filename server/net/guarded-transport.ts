/**
 * An HttpTransport for URLs that come from untrusted input (OCSP, CRL and caIssuers URLs in certificates):
 * http(s) only, every address the name resolves to must be public (unless private targets are allowed),
 * and the check runs in the socket's own lookup, so the address connected to is the address checked (no
 * DNS rebinding between check and connect). Redirects are not followed. Bounded in time and size.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction, type Socket } from 'node:net';
import type { HttpTransport } from '../../pdf/index.js';
import { classifyAddress, isPublicAddress } from './address-policy.js';

export interface GuardedTransportOptions {
  readonly allowPrivate?: boolean;
  readonly timeoutMs?: number;
  readonly maxBytes?: number;
  /** Name resolution (default: the system resolver); tests inject names that resolve to chosen addresses. */
  readonly resolve?: Resolver;
}

export class OutboundRefused extends Error {}

/** Every address a host name resolves to. */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

/** Which addresses may be connected to. */
export type AddressPolicy = (address: string) => boolean;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  );

/** Public addresses only, or (operator's setting for LANs and tests) any address. */
export function addressPolicy(allowPrivate: boolean): AddressPolicy {
  return allowPrivate ? () => true : isPublicAddress;
}

function refusal(hostname: string, address: string): OutboundRefused {
  const category = classifyAddress(address) ?? 'refused by policy';
  return new OutboundRefused(
    hostname === address
      ? `${address} is not a public address (${category})`
      : `${hostname} resolves to ${address}, which is not a public address (${category})`,
  );
}

/**
 * A socket lookup that refuses names resolving to any address the policy refuses: the address the socket
 * then connects to is one this check passed, so DNS cannot change between check and connect.
 */
export function guardedLookup(policy: AddressPolicy, resolve: Resolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (list) => {
        const family = (options as { family?: number | string }).family;
        const wanted = family === 4 || family === 6 ? list.filter((a) => a.family === family) : list;
        const refused = wanted.find((a) => !policy(a.address));
        if (refused) return callback(refusal(hostname, refused.address), '', 0);
        if (wanted.length === 0) return callback(new OutboundRefused(`${hostname} resolves to no address`), '', 0);
        if ((options as { all?: boolean }).all) {
          return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, wanted);
        }
        return callback(null, wanted[0]!.address, wanted[0]!.family);
      },
      (error: Error) => callback(error as NodeJS.ErrnoException, '', 0),
    );
  };
}

/** A URL host that is an IP literal (no DNS happens for it, so the lookup above never sees it), unbracketed. */
export function literalAddress(hostname: string): string | undefined {
  const bare = hostname.replace(/^\[|\]$/g, '');
  return isIP(bare) === 0 ? undefined : bare;
}

/** The refusal for an IP-literal host the policy does not allow, checked before connecting. */
export function refuseLiteral(hostname: string, policy: AddressPolicy): OutboundRefused | undefined {
  const literal = literalAddress(hostname);
  return literal !== undefined && !policy(literal) ? refusal(literal, literal) : undefined;
}

/**
 * Checks the address a socket is (or gets) connected to: covers IP literals, which skip the lookup, and
 * is a second look at the address actually reached. Destroys the socket when the policy refuses it.
 */
export function guardSocket(socket: Socket, policy: AddressPolicy): void {
  const check = (): void => {
    const address = socket.remoteAddress;
    if (address !== undefined && !policy(address)) socket.destroy(refusal(address, address));
  };
  if (socket.remoteAddress !== undefined) check();
  else socket.once('connect', check);
}

export function guardedTransport(options: GuardedTransportOptions = {}): HttpTransport {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const maxBytes = options.maxBytes ?? 10 * 1024 * 1024;
  const policy = addressPolicy(options.allowPrivate ?? false);
  const lookup = guardedLookup(policy, options.resolve);
  return ({ url, body, contentType, accept }) =>
    new Promise<Uint8Array>((resolve, reject) => {
      const target = new URL(url);
      if (target.protocol !== 'http:' && target.protocol !== 'https:') {
        return reject(new OutboundRefused(`${url}: only http and https are fetched`));
      }
      // A literal IP skips DNS: check it here.
      const literal = target.hostname.replace(/^\[|\]$/g, '');
      if (!options.allowPrivate && /^[\d.]+$|:/.test(literal) && !isPublicAddress(literal)) {
        return reject(new OutboundRefused(`${url}: ${literal} is not a public address`));
      }
      const client = target.protocol === 'https:' ? https : http;
      const request = client.request(
        target,
        {
          method: body ? 'POST' : 'GET',
          headers: {
            'user-agent': 'Mohar/0.1',
            ...(contentType ? { 'content-type': contentType } : {}),
            ...(accept ? { accept } : {}),
            ...(body ? { 'content-length': body.byteLength } : {}),
          },
          lookup,
          timeout: timeoutMs,
        },
        (response) => {
          if ((response.statusCode ?? 0) < 200 || (response.statusCode ?? 0) >= 300) {
            response.resume();
            return reject(new Error(`${url} answered HTTP ${response.statusCode}`));
          }
          const chunks: Buffer[] = [];
          let total = 0;
          response.on('data', (chunk: Buffer) => {
            total += chunk.length;
            if (total > maxBytes) {
              request.destroy(new Error(`${url} sent more than ${maxBytes} bytes`));
              return;
            }
            chunks.push(chunk);
          });
          response.on('end', () => resolve(new Uint8Array(Buffer.concat(chunks))));
          response.on('error', reject);
        },
      );
      request.on('socket', (socket) => guardSocket(socket, policy));
      request.on('timeout', () => request.destroy(new Error(`${url} did not answer within ${timeoutMs} ms`)));
      request.on('error', reject);
      request.end(body ? Buffer.from(body) : undefined);
    });
}
