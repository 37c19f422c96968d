/**
 * A real RFC 3161 time-stamping authority on loopback for tests: each `application/timestamp-query`
 * POST is answered by `openssl ts -reply`. Failure modes let tests simulate a TSA that is down,
 * answers HTTP errors, refuses, or answers for the wrong imprint or nonce.
 *
 * Also: `loopbackTransport()`, an HttpTransport over node's fetch that refuses anything but loopback,
 * and `openssl()`, the async runner the test PKI helpers share.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import type { HttpTransport } from '../../pdf/index.js';

/** Runs openssl; rejects with its stderr on failure. */
export function openssl(args: readonly string[], options: { cwd?: string } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'openssl',
      args,
      { cwd: options.cwd, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`openssl ${args.join(' ')} failed: ${stderr || error.message}`));
        else resolve(stdout);
      },
    );
  });
}

export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Listens on 127.0.0.1:0 (or the given port) and resolves with the port. */
export function listen(server: Server, port = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Stops accepting and drops open (keep-alive) connections, so that clients see "connection refused". */
export function stopListening(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** HttpTransport over fetch for tests: loopback URLs only; non-2xx answers throw. */
export function loopbackTransport(options: { log?: string[] } = {}): HttpTransport {
  return async ({ url, body, contentType, accept }) => {
    const u = new URL(url);
    if (!['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname)) {
      throw new Error(`test transport: refusing non-loopback URL ${url}`);
    }
    options.log?.push(`${body ? 'POST' : 'GET'} ${url}`);
    const headers: Record<string, string> = {};
    if (contentType) headers['content-type'] = contentType;
    if (accept) headers.accept = accept;
    const res = await fetch(url, {
      method: body ? 'POST' : 'GET',
      headers,
      ...(body ? { body } : {}),
      signal: AbortSignal.timeout(5000),
    });
    const bytes = new Uint8Array(await res.arrayBuffer());
    if (!res.ok) throw new Error(`HTTP ${res.status} from ${url}`);
    return bytes;
  };
}

export type TsaFailMode =
  | 'none'
  /** The port is closed: connection refused. */
  | 'down'
  /** HTTP 500. */
  | 'http500'
  /** A TimeStampResp with status rejection (2). */
  | 'rejection'
  /** Not DER at all. */
  | 'garbage'
  /** A genuine token for a different imprint. */
  | 'wrong-imprint'
  /** A genuine token with a different nonce. */
  | 'wrong-nonce'
  /** A genuine token whose TSA signature has been tampered with. */
  | 'bad-signature';

export interface TsaOptions {
  readonly certPem: string;
  readonly keyPem: string;
  /** Certificates to include after the TSA certificate (intermediates, root). */
  readonly chainPem?: string;
  readonly policy?: string;
}

export interface TestTsa {
  readonly url: string;
  /** Requests received (in every mode but 'down'). */
  readonly requests: number;
  setFailing(mode: TsaFailMode): Promise<void>;
  close(): Promise<void>;
}

function tweakQuery(der: Buffer, mode: 'wrong-imprint' | 'wrong-nonce'): Buffer {
  const req = pkijs.TimeStampReq.fromBER(new Uint8Array(der).buffer);
  if (mode === 'wrong-imprint') {
    const h = new Uint8Array(req.messageImprint.hashedMessage.valueBlock.valueHexView);
    h[0] = h[0]! ^ 0xff;
    req.messageImprint.hashedMessage = new asn1js.OctetString({ valueHex: h });
  } else {
    req.nonce = asn1js.Integer.fromBigInt((req.nonce?.toBigInt() ?? 0n) + 1n);
  }
  return Buffer.from(req.toSchema().toBER(false));
}

/** Starts a TSA on 127.0.0.1 that signs with `openssl ts -reply`. */
export async function startTsa(options: TsaOptions): Promise<TestTsa> {
  const dir = mkdtempSync(join(tmpdir(), 'mohar-tsa-'));
  writeFileSync(join(dir, 'tsa.pem'), options.certPem);
  writeFileSync(join(dir, 'tsa.key'), options.keyPem, { mode: 0o600 });
  writeFileSync(join(dir, 'chain.pem'), options.chainPem ?? '');
  writeFileSync(join(dir, 'serial'), '01\n');
  writeFileSync(
    join(dir, 'tsa.cnf'),
    [
      '[ tsa ]',
      'default_tsa = tsa1',
      '[ tsa1 ]',
      `dir = ${dir}`,
      'serial = $dir/serial',
      'crypto_device = builtin',
      'signer_cert = $dir/tsa.pem',
      'certs = $dir/chain.pem',
      'signer_key = $dir/tsa.key',
      'signer_digest = sha256',
      `default_policy = ${options.policy ?? '1.3.6.1.4.1.59999.1.1'}`,
      'digests = sha256, sha384, sha512',
      'accuracy = secs:1',
      'ordering = yes',
      'tsa_name = yes',
      'ess_cert_id_chain = no',
      'ess_cert_id_alg = sha256',
      '',
    ].join('\n'),
  );
  let mode: TsaFailMode = 'none';
  let requests = 0;
  let seq = 0;
  // openssl ts updates its serial file: one reply at a time.
  let queue: Promise<unknown> = Promise.resolve();

  const reply = async (query: Buffer): Promise<Buffer> => {
    const n = ++seq;
    const q = join(dir, `q${n}.tsq`);
    const r = join(dir, `r${n}.tsr`);
    writeFileSync(q, query);
    const run = queue.then(() =>
      openssl(['ts', '-reply', '-config', join(dir, 'tsa.cnf'), '-queryfile', q, '-out', r]),
    );
    queue = run.catch(() => undefined);
    await run;
    const out = readFileSync(r);
    rmSync(q, { force: true });
    rmSync(r, { force: true });
    return out;
  };

  const server = createServer((req, res) => {
    void (async () => {
      requests++;
      const body = await readBody(req);
      if (req.method !== 'POST' || req.headers['content-type'] !== 'application/timestamp-query') {
        res.writeHead(415).end();
        return;
      }
      let answer: Buffer;
      switch (mode) {
        case 'http500':
          res.writeHead(500, { 'content-type': 'text/plain' }).end('TSA exploded');
          return;
        case 'garbage':
          answer = randomBytes(40);
          break;
        case 'rejection':
          answer = Buffer.from(
            new pkijs.TimeStampResp({
              status: new pkijs.PKIStatusInfo({
                status: 2,
                statusStrings: [new asn1js.Utf8String({ value: 'TSA is resting' })],
              }),
            })
              .toSchema()
              .toBER(false),
          );
          break;
        case 'wrong-imprint':
        case 'wrong-nonce':
          answer = await reply(tweakQuery(body, mode));
          break;
        case 'bad-signature':
          answer = await reply(body);
          // The SignerInfo signature value is the last element of the token: flip its last byte.
          answer[answer.length - 1] = answer[answer.length - 1]! ^ 0x01;
          break;
        default:
          answer = await reply(body);
      }
      res
        .writeHead(200, { 'content-type': 'application/timestamp-reply', 'content-length': answer.length })
        .end(answer);
    })().catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' }).end(String(e));
    });
  });
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}/tsa`,
    get requests() {
      return requests;
    },
    async setFailing(next: TsaFailMode) {
      if (next === 'down' && mode !== 'down') await stopListening(server);
      if (next !== 'down' && mode === 'down') await listen(server, port);
      mode = next;
    },
    async close() {
      await stopListening(server);
      await queue;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
