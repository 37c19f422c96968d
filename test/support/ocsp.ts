/**
 * A real OCSP responder on loopback for tests: each POSTed `application/ocsp-request` is answered by
 * `openssl ocsp -index … -CA … -rsigner … -rkey … -reqin … -respout …`. The same server serves the
 * CA's CRL (made by `openssl ca -gencrl` from the same index, when the CA key is given) and any
 * other file on GET (the CA certificate for AIA caIssuers, say).
 */
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listen, openssl, readBody, stopListening } from './tsa.js';

export type OcspFailMode =
  | 'none'
  /** The port is closed: connection refused (the CRL and files are gone too). */
  | 'down'
  /** HTTP 500 on OCSP requests. */
  | 'http500'
  /** A well-formed OCSPResponse with status tryLater (3). */
  | 'tryLater'
  /** Not DER. */
  | 'garbage'
  /** A genuine response whose signature has been tampered with. */
  | 'bad-signature';

export interface OcspResponderOptions {
  /** PEM of the CA whose certificates this responder answers for. */
  readonly caCert: string;
  /** PEM responder certificate: the CA itself or a delegated OCSP signer issued by it. */
  readonly responderCert: string;
  readonly responderKey: string;
  /** The CA key, to make CRLs (optional: without it, setCrl() provides the CRL). */
  readonly caKey?: string;
  /** Path of an existing openssl index file to use; by default the responder keeps its own. */
  readonly index?: string;
}

export interface OcspResponder {
  /** The OCSP URL (POST). */
  readonly url: string;
  /** The CRL URL (GET, DER). */
  readonly crlUrl: string;
  readonly baseUrl: string;
  /** OCSP requests received. */
  readonly requests: number;
  /** CRL downloads served. */
  readonly crlRequests: number;
  /** Adds an issued certificate to the index as valid. */
  register(certPem: string): void;
  /** Marks a certificate revoked (it is registered if needed). */
  revoke(certPem: string, options?: { reason?: string; time?: Date }): void;
  /** Serves `body` on GET `path` (e.g. '/ca.cer'); returns its URL. */
  serve(path: string, body: Uint8Array, contentType?: string): string;
  /** Replaces the generated CRL with fixed bytes (null: back to the generated one). */
  setCrl(der: Uint8Array | null): void;
  setFailing(mode: OcspFailMode): Promise<void>;
  close(): Promise<void>;
}

function opensslTime(d: Date): string {
  return d.toISOString().replace(/[-:T]/g, '').slice(2, 14) + 'Z';
}

function pemToDer(pem: string): Buffer {
  return Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
}

interface Entry {
  status: 'V' | 'R';
  expiry: string;
  revocation: string;
  serial: string;
  subject: string;
}

export async function startOcspResponder(options: OcspResponderOptions): Promise<OcspResponder> {
  const dir = mkdtempSync(join(tmpdir(), 'mohar-ocsp-'));
  const caPath = join(dir, 'ca.pem');
  const rPath = join(dir, 'responder.pem');
  const rKeyPath = join(dir, 'responder.key');
  const indexPath = options.index ?? join(dir, 'index.txt');
  writeFileSync(caPath, options.caCert);
  writeFileSync(rPath, options.responderCert);
  writeFileSync(rKeyPath, options.responderKey, { mode: 0o600 });
  if (!existsSync(indexPath)) writeFileSync(indexPath, '');
  writeFileSync(indexPath + '.attr', 'unique_subject = no\n');
  if (options.caKey) {
    writeFileSync(join(dir, 'ca.key'), options.caKey, { mode: 0o600 });
    writeFileSync(join(dir, 'crlnumber'), '1000\n');
    writeFileSync(
      join(dir, 'ca.cnf'),
      [
        '[ ca ]',
        'default_ca = CA_default',
        '[ CA_default ]',
        `database = ${indexPath}`,
        `crlnumber = ${join(dir, 'crlnumber')}`,
        'default_md = sha256',
        'default_crl_days = 1',
        '',
      ].join('\n'),
    );
  }

  const entries = new Map<string, Entry>();
  for (const line of readFileSync(indexPath, 'utf8').split('\n')) {
    const [status, expiry, revocation, serial, , subject] = line.split('\t');
    if ((status === 'V' || status === 'R') && expiry && serial) {
      entries.set(serial, { status, expiry, revocation: revocation ?? '', serial, subject: subject ?? '/CN=unknown' });
    }
  }
  let crlDirty = true;
  let crlFixed: Uint8Array | null = null;
  let crlCache: Buffer | null = null;
  const writeIndex = (): void => {
    writeFileSync(
      indexPath,
      [...entries.values()]
        .map((e) => [e.status, e.expiry, e.revocation, e.serial, 'unknown', e.subject].join('\t') + '\n')
        .join(''),
    );
    crlDirty = true;
  };
  const entryFor = (certPem: string): Entry => {
    const x = new X509Certificate(certPem);
    const serial = x.serialNumber.toUpperCase().padStart(x.serialNumber.length + (x.serialNumber.length % 2), '0');
    let e = entries.get(serial);
    if (!e) {
      e = {
        status: 'V',
        expiry: opensslTime(new Date(x.validTo)),
        revocation: '',
        serial,
        subject: '/' + x.subject.split('\n').join('/'),
      };
      entries.set(serial, e);
    }
    return e;
  };

  let mode: OcspFailMode = 'none';
  let requests = 0;
  let crlRequests = 0;
  let seq = 0;
  const files = new Map<string, { body: Uint8Array; type: string }>();

  const makeCrl = async (): Promise<Buffer> => {
    if (crlFixed) return Buffer.from(crlFixed);
    if (!crlDirty && crlCache) return crlCache;
    if (!options.caKey) throw new Error('no CA key: use setCrl()');
    const out = join(dir, 'crl.pem');
    await openssl([
      'ca',
      '-gencrl',
      '-config',
      join(dir, 'ca.cnf'),
      '-keyfile',
      join(dir, 'ca.key'),
      '-cert',
      caPath,
      '-out',
      out,
    ]);
    crlCache = pemToDer(readFileSync(out, 'utf8'));
    crlDirty = false;
    return crlCache;
  };

  const answerOcsp = async (request: Buffer): Promise<Buffer> => {
    const n = ++seq;
    const q = join(dir, `q${n}.der`);
    const r = join(dir, `r${n}.der`);
    writeFileSync(q, request);
    try {
      await openssl([
        'ocsp',
        '-index',
        indexPath,
        '-CA',
        caPath,
        '-rsigner',
        rPath,
        '-rkey',
        rKeyPath,
        '-reqin',
        q,
        '-respout',
        r,
        '-ndays',
        '1',
      ]);
      return readFileSync(r);
    } finally {
      rmSync(q, { force: true });
      rmSync(r, { force: true });
    }
  };

  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (req.method === 'POST' && path === '/ocsp') {
        requests++;
        let answer: Buffer;
        switch (mode) {
          case 'http500':
            res.writeHead(500).end('responder exploded');
            return;
          case 'garbage':
            answer = Buffer.from('this is not an OCSP response');
            break;
          case 'tryLater':
            answer = Buffer.from([0x30, 0x03, 0x0a, 0x01, 0x03]);
            break;
          case 'bad-signature':
            answer = await answerOcsp(body);
            // Flip a bit in the middle of the signed ResponseData (the produced-at time or the status).
            answer[Math.floor(answer.length / 4)] = answer[Math.floor(answer.length / 4)]! ^ 0x01;
            break;
          default:
            answer = await answerOcsp(body);
        }
        res
          .writeHead(200, { 'content-type': 'application/ocsp-response', 'content-length': answer.length })
          .end(answer);
        return;
      }
      if (req.method === 'GET' && path === '/crl') {
        crlRequests++;
        const crl = await makeCrl();
        res.writeHead(200, { 'content-type': 'application/pkix-crl', 'content-length': crl.length }).end(crl);
        return;
      }
      const file = req.method === 'GET' ? files.get(path) : undefined;
      if (file) {
        res.writeHead(200, { 'content-type': file.type, 'content-length': file.body.length }).end(file.body);
        return;
      }
      res.writeHead(404).end();
    })().catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' }).end(String(e));
    });
  });
  const port = await listen(server);
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    url: `${baseUrl}/ocsp`,
    crlUrl: `${baseUrl}/crl`,
    baseUrl,
    get requests() {
      return requests;
    },
    get crlRequests() {
      return crlRequests;
    },
    register(certPem) {
      entryFor(certPem);
      writeIndex();
    },
    revoke(certPem, opts = {}) {
      const e = entryFor(certPem);
      e.status = 'R';
      e.revocation = opensslTime(opts.time ?? new Date(Date.now() - 60_000)) + (opts.reason ? `,${opts.reason}` : '');
      writeIndex();
    },
    serve(path, body, contentType = 'application/pkix-cert') {
      files.set(path, { body, type: contentType });
      return baseUrl + path;
    },
    setCrl(der) {
      crlFixed = der;
    },
    async setFailing(next) {
      if (next === 'down' && mode !== 'down') await stopListening(server);
      if (next !== 'down' && mode === 'down') await listen(server, port);
      mode = next;
    },
    async close() {
      await stopListening(server);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
