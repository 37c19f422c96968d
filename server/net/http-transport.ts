/**
 * The HttpTransport port of pdf/ (TSA, OCSP, CRL and caIssuers requests) over fetch: bounded in time
 * and size, no redirects followed silently, errors with the URL named.
 */
import type { HttpTransport } from '../../pdf/index.js';

export interface HttpTransportOptions {
  readonly timeoutMs?: number;
  readonly maxBytes?: number;
  readonly userAgent?: string;
}

export function fetchTransport(options: HttpTransportOptions = {}): HttpTransport {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const maxBytes = options.maxBytes ?? 10 * 1024 * 1024;
  return async ({ url, body, contentType, accept }) => {
    const headers: Record<string, string> = { 'user-agent': options.userAgent ?? 'Mohar/0.1' };
    if (contentType) headers['content-type'] = contentType;
    if (accept) headers.accept = accept;
    const response = await fetch(url, {
      method: body ? 'POST' : 'GET',
      headers,
      ...(body ? { body: Buffer.from(body) } : {}),
      redirect: 'error',
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) throw new Error(`${url} answered HTTP ${response.status}`);
    const declared = Number(response.headers.get('content-length') ?? 0);
    if (declared > maxBytes) throw new Error(`${url} sent ${declared} bytes; the limit is ${maxBytes}`);
    const chunks: Uint8Array[] = [];
    let total = 0;
    for await (const chunk of response.body ?? []) {
      total += (chunk as Uint8Array).byteLength;
      if (total > maxBytes) throw new Error(`${url} sent more than ${maxBytes} bytes`);
      chunks.push(chunk as Uint8Array);
    }
    return new Uint8Array(Buffer.concat(chunks));
  };
}
