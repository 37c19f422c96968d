/**
 * The ESP simulator over HTTP (node:http, loopback by default):
 *
 *   POST /esign/2.1/signdoc       the ASP's form post (eSignRequest, aspTxnID, Content-Type) → OTP page
 *   POST /esign/2.1/authenticate  the OTP page → a page that auto-posts eSignResponse + espTxnID to responseUrl
 *   POST /esign/2.1/status        EsignStatus XML (server to server) → EsignResp XML
 *   GET  /esign/2.1/esp.css, /esign/2.1/autopost.js
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EspSimulator, type EspOptions } from './esp.js';
import { authenticatePage, autoPostPage, AUTOPOST_JS, BASE, errorPage, ESP_CSS } from './pages.js';
import { REQUEST_ERRORS } from './scenarios.js';

const MAX_BODY = 2 * 1024 * 1024;

export interface RunningSimulator {
  /** Base URL, e.g. http://127.0.0.1:5080 */
  readonly url: string;
  /** The form URL the ASP posts to (MOHAR_ESIGN_ESP_URL). */
  readonly espUrl: string;
  /** The EsignStatus URL (MOHAR_ESIGN_STATUS_URL). */
  readonly statusUrl: string;
  readonly esp: EspSimulator;
  close(): Promise<void>;
}

class BodyTooLarge extends Error {}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new BodyTooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function cspFor(formTarget?: string): string {
  const formAction = formTarget ? `'self' ${new URL(formTarget).origin}` : "'self'";
  return `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`;
}

/** One answer of the simulator, whatever serves it: its own node:http server or a mount in Mohar's sandbox. */
export interface SimulatorAnswer {
  readonly status: number;
  readonly type: string;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
}

function answer(status: number, type: string, body: string, csp = cspFor()): SimulatorAnswer {
  return {
    status,
    type,
    body,
    headers: {
      'cache-control': 'no-store',
      'content-security-policy': csp,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    },
  };
}

/**
 * The simulator's routes, given a path that starts at /esign/2.1 (pages link relatively, so the same pages
 * work under a prefix) and the request body when it is a POST. Unknown paths are 404.
 */
export async function answerSimulator(
  esp: EspSimulator,
  method: string,
  path: string,
  readBody: () => Promise<string>,
): Promise<SimulatorAnswer> {
  if (method === 'GET' && path === `${BASE}/esp.css`) return answer(200, 'text/css; charset=utf-8', ESP_CSS);
  if (method === 'GET' && path === `${BASE}/autopost.js`) {
    return answer(200, 'text/javascript; charset=utf-8', AUTOPOST_JS);
  }
  // The pages name this icon so a browser asks here, not at the origin's /favicon.ico (Mohar's answers 404).
  if (method === 'GET' && path === `${BASE}/favicon.ico`) return answer(204, 'image/x-icon', '');
  if (method !== 'POST') return answer(404, 'text/plain; charset=utf-8', 'not found');
  const body = await readBody();
  if (path === `${BASE}/status`) return answer(200, 'application/xml; charset=utf-8', await esp.status(body));
  const form = new URLSearchParams(body);
  if (path === `${BASE}/signdoc`) {
    const reception = await esp.receive(form);
    if (reception.kind === 'refuse') {
      return answer(400, 'text/html; charset=utf-8', errorPage(reception.error, reception.detail));
    }
    if (reception.kind === 'respond') {
      return answer(
        200,
        'text/html; charset=utf-8',
        autoPostPage(reception.responseUrl, reception.responseXml, reception.txn),
        cspFor(reception.responseUrl),
      );
    }
    return answer(200, 'text/html; charset=utf-8', authenticatePage(reception.session));
  }
  if (path === `${BASE}/authenticate`) {
    const session = esp.session(form.get('session') ?? '');
    if (!session || session.responseXml) {
      return answer(
        410,
        'text/html; charset=utf-8',
        errorPage(REQUEST_ERRORS.unknownTxn, 'This signing session is over or unknown.'),
      );
    }
    const cancel = form.get('action') === 'cancel';
    if (!cancel && form.get('consent') !== 'Y') {
      return answer(200, 'text/html; charset=utf-8', authenticatePage(session, 'Give your consent to continue.'));
    }
    const done = await esp.authenticate(session.id, {
      aadhaar: (form.get('aadhaar') ?? '').trim(),
      otp: (form.get('otp') ?? '').trim(),
      name: form.get('name') ?? '',
      cancel,
    });
    if (!done) {
      return answer(
        410,
        'text/html; charset=utf-8',
        errorPage(REQUEST_ERRORS.unknownTxn, 'This signing session is over.'),
      );
    }
    return answer(
      200,
      'text/html; charset=utf-8',
      autoPostPage(done.responseUrl, done.responseXml, done.txn),
      cspFor(done.responseUrl),
    );
  }
  return answer(404, 'text/plain; charset=utf-8', 'not found');
}

function send(res: ServerResponse, result: SimulatorAnswer): void {
  res.writeHead(result.status, { 'content-type': result.type, ...result.headers });
  res.end(result.body);
}

async function route(esp: EspSimulator, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://localhost').pathname;
  if (req.method === 'GET' && path === '/favicon.ico') {
    res.writeHead(204, { 'cache-control': 'max-age=86400' });
    return void res.end();
  }
  send(res, await answerSimulator(esp, req.method ?? 'GET', path, () => readBody(req)));
}

/** Starts the simulator; port 0 picks a free one. */
export async function startEspSimulator(
  options: EspOptions & { port?: number; host?: string },
): Promise<RunningSimulator> {
  const esp = new EspSimulator(options);
  const server: Server = createServer((req, res) => {
    route(esp, req, res).catch((e: unknown) => {
      if (res.headersSent) return res.destroy();
      if (e instanceof BodyTooLarge) return send(res, answer(413, 'text/plain; charset=utf-8', 'request too large'));
      send(res, answer(500, 'text/plain; charset=utf-8', `simulator error: ${(e as Error).message}`));
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url,
    espUrl: `${url}${BASE}/signdoc`,
    statusUrl: `${url}${BASE}/status`,
    esp,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
