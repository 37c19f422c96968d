/** A local HTTP server that plays the integrator's file host for doc_url, and a legacy create helper. */
import { createServer, type Server } from 'node:http';
import type { LightMyRequestResponse } from 'fastify';
import { makePdf } from '../../support/pdf-fixtures.js';
import { LEGACY, type TestServer } from '../../support/server.js';

export interface DocServer {
  readonly base: string;
  readonly pdf: Buffer;
  /** Requests seen, by path. */
  readonly hits: Map<string, number>;
  /** Bytes the /endless route managed to write before the client went away, per request. */
  readonly endlessWritten: number[];
  close(): Promise<void>;
}

/**
 * Routes: /doc.pdf (a 1-page PDF), /text (not a PDF), /missing (404), /endless (streams zeros until the client
 * hangs up, no Content-Length), /declared-big (Content-Length beyond any limit), /hop/N (N redirects, then the
 * PDF), /to-ftp (redirect to ftp:), /to/<encoded url> (redirect there), /slow (answers after 5 s).
 */
export async function startDocServer(): Promise<DocServer> {
  const pdf = makePdf({ pages: 1 });
  const hits = new Map<string, number>();
  const endlessWritten: number[] = [];
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0]!;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const hop = /^\/hop\/(\d+)$/.exec(path);
    if (path === '/doc.pdf') {
      return void response.writeHead(200, { 'content-type': 'application/pdf', 'content-length': pdf.length }).end(pdf);
    }
    if (path === '/text') {
      return void response.writeHead(200, { 'content-type': 'text/html' }).end('<html>not a pdf</html>');
    }
    if (path === '/missing') return void response.writeHead(404).end('no');
    if (hop) {
      const n = Number(hop[1]);
      return void response.writeHead(302, { location: n <= 1 ? '/doc.pdf' : `/hop/${n - 1}` }).end();
    }
    if (path === '/to-ftp') return void response.writeHead(302, { location: 'ftp://127.0.0.1/doc.pdf' }).end();
    if (path.startsWith('/to/')) {
      return void response.writeHead(302, { location: decodeURIComponent(path.slice(4)) }).end();
    }
    if (path === '/declared-big') {
      response.writeHead(200, { 'content-type': 'application/pdf', 'content-length': 10 * 1024 * 1024 * 1024 });
      return void response.write(pdf.subarray(0, 100));
    }
    if (path === '/slow') return void setTimeout(() => response.writeHead(200).end(pdf), 5_000).unref();
    if (path === '/endless') {
      let written = 0;
      const chunk = Buffer.alloc(16 * 1024, 0x20);
      response.writeHead(200, { 'content-type': 'application/pdf' });
      response.write('%PDF-1.7\n');
      const pump = (): void => {
        // Stop by ourselves at 64 MiB: a client that never hangs up fails the test instead of hanging it.
        while (!response.destroyed && written < 64 * 1024 * 1024) {
          written += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', pump);
        }
        if (!response.destroyed) response.end();
      };
      response.on('close', () => endlessWritten.push(written));
      return pump();
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    base: `http://127.0.0.1:${port}`,
    pdf,
    hits,
    endlessWritten,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface CreateOptions {
  docUrl: string;
  mail?: boolean;
  recipients?: unknown[];
  idempotencyKey?: string;
  bodyKey?: string;
  redirectUrl?: string;
}

export const SIGNER = {
  name: 'Asha Rao',
  email: 'asha@example.com',
  typeOfSignature: 'E-Signature',
  sequence: 1,
  page_no: 1,
  x_cor: 72,
  y_cor: 600,
};
export const APPROVER = { name: 'Ravi Kumar', email: 'ravi@example.com', typeOfSignature: 'Approver', sequence: 2 };

export function createBody(key: string, options: CreateOptions): Record<string, unknown> {
  return {
    companyDetails: {
      api_key: options.bodyKey ?? key,
      ...(options.mail === undefined ? {} : { is_mail_required: options.mail }),
    },
    documentDetails: { doc_url: options.docUrl, ...(options.redirectUrl ? { redirect_url: options.redirectUrl } : {}) },
    recipientDetail: options.recipients ?? [SIGNER, APPROVER],
  };
}

export function legacyCreate(server: TestServer, key: string, options: CreateOptions): Promise<LightMyRequestResponse> {
  return server.request('POST', `${LEGACY}/document/recipients/create/`, {
    key,
    json: createBody(key, options),
    ...(options.idempotencyKey ? { headers: { 'idempotency-key': options.idempotencyKey } } : {}),
  });
}

/** The token part of a signing URL ({base}/sign/{token}). */
export function tokenOf(signingUrl: string): string {
  return signingUrl.split('/sign/')[1]!;
}
