/**
 * An HttpTransport for URLs that come from untrusted input (OCSP, CRL and caIssuers URLs in certificates):
 * http(s) only, every address the name resolves to must be public (unless private targets are allowed),
 * and the check runs in the socket's own lookup, so the address connected to is the address checked (no
 * DNS rebinding between check and connect). Redirects are not followed. Bounded in time and size.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { HttpTransport } from '../../pdf/sign/ports.js';
import { isPublicAddress } from './address-policy.js';

export interface GuardedTransportOptions {
  readonly allowPrivate?: boolean;
  readonly timeoutMs?: number;
  readonly maxBytes?: number;
}

export class OutboundRefused extends Error {}

function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as LookupAddress[];
      const refused = list.find((a) => !allowPrivate && !isPublicAddress(a.address));
      if (refused || list.length === 0) return callback(new OutboundRefused(`${hostname} resolves to ${refused?.address ?? 'nothing'}, which is not a public address`), '', 0);
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      return callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

export function guardedTransport(options: GuardedTransportOptions = {}): HttpTransport {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const maxBytes = options.maxBytes ?? 10 * 1024 * 1024;
  const lookup = guardedLookup(options.allowPrivate ?? false);
  return ({ url, body, contentType, accept }) =>
    new Promise<Uint8Array>((resolve, reject) => {
      const target = new URL(url);
      if (target.protocol !== 'http:' && target.protocol !== 'https:') return reject(new OutboundRefused(`${url}: only http and https are fetched`));
      // A literal IP skips DNS: check it here.
      const literal = target.hostname.replace(/^\[|\]$/g, '');
      if (!options.allowPrivate && /^[\d.]+$|:/.test(literal) && !isPublicAddress(literal)) return reject(new OutboundRefused(`${url}: ${literal} is not a public address`));
      const client = target.protocol === 'https:' ? https : http;
      const request = client.request(target, {
        method: body ? 'POST' : 'GET',
        headers: { 'user-agent': 'Mohar/0.1', ...(contentType ? { 'content-type': contentType } : {}), ...(accept ? { accept } : {}), ...(body ? { 'content-length': body.byteLength } : {}) },
        lookup,
        timeout: timeoutMs,
      }, (response) => {
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
      });
      request.on('timeout', () => request.destroy(new Error(`${url} did not answer within ${timeoutMs} ms`)));
      request.on('error', reject);
      request.end(body ? Buffer.from(body) : undefined);
    });
}
