/** Starts a real Mohar app on a fresh database for one test suite; requests go through app.inject. */
import { randomBytes } from 'node:crypto';
import { after, before } from 'node:test';
import { Writable } from 'node:stream';
import type { LightMyRequestResponse } from 'fastify';
import { buildServerApp } from '../../server/app.js';
import { parseConfig } from '../../server/config.js';
import { bootstrapFirstAccount } from '../../server/domain/accounts/bootstrap.js';
import { createAccount } from '../../server/domain/accounts/create-account.js';
import type { Context } from '../../server/domain/context.js';
import type { App } from '../../server/http/app-type.js';
import { jobRunnerFor } from '../../server/start.js';
import { openRuntime } from '../../server/runtime.js';
import { createTestDatabase, type DatabaseKind } from './databases.js';
import { installResponseValidator, type ResponseViolation } from './response-validator.js';

export const ADMIN_EMAIL = 'admin@test.local';
export const ADMIN_PASSWORD = 'correct horse battery staple';
export const API = '/backend/api/v1';
export const LEGACY = '/backend/othercompanyapi';

export class TestClock {
  private offsetMs = 0;
  readonly now = (): Date => new Date(Date.now() + this.offsetMs);
  advance(seconds: number): void {
    this.offsetMs += seconds * 1000;
  }
}

export interface RequestOptions {
  key?: string;
  token?: string;
  json?: unknown;
  headers?: Record<string, string>;
  file?: { filename?: string; bytes: Uint8Array; field?: string; contentType?: string };
}

export interface TestAccount {
  accountId: string;
  email: string;
  password: string;
  token: string;
  key: string;
}

export interface TestServer {
  readonly kind: DatabaseKind;
  readonly app: App;
  readonly ctx: Context;
  readonly clock: TestClock;
  readonly logs: string[];
  /** Answers that the OpenAPI documents do not describe (test/support/response-validator.ts). */
  readonly responseViolations: readonly ResponseViolation[];
  request(method: string, url: string, options?: RequestOptions): Promise<LightMyRequestResponse>;
  login(email?: string, password?: string): Promise<string>;
  /** A fresh account with its api_admin login and a live key (and a test key when testMode). */
  newAccount(options?: { testMode?: boolean }): Promise<TestAccount & { testKey?: string }>;
  /** Runs every due job once (mail, completion, expiry); returns how many ran. */
  runJobs(): Promise<number>;
  close(): Promise<void>;
}

export function multipartBody(parts: { field: string; filename?: string; contentType?: string; bytes: Uint8Array }[]): {
  body: Buffer;
  contentType: string;
} {
  const boundary = `----mohar${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.field}"${part.filename === undefined ? '' : `; filename="${part.filename}"`}`;
    const type = part.filename === undefined ? '' : `Content-Type: ${part.contentType ?? 'application/pdf'}\r\n`;
    chunks.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`),
      Buffer.from(part.bytes),
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

export async function startTestServer(kind: DatabaseKind, env: Record<string, string> = {}): Promise<TestServer> {
  const database = await createTestDatabase(kind);
  const config = parseConfig({
    MOHAR_DATA_DIR: database.dataDir,
    MOHAR_DATABASE_URL: database.databaseUrl,
    MOHAR_ADMIN_EMAIL: ADMIN_EMAIL,
    MOHAR_ADMIN_PASSWORD: ADMIN_PASSWORD,
    MOHAR_LOG_LEVEL: 'info',
    // Suites make many calls with one key; the burst limit is tested where a suite sets it lower.
    MOHAR_RATE_LIMIT_PER_MINUTE: '1000000',
    // Likewise for the signing-link limits (all test requests come from one address).
    MOHAR_TOKEN_RATE_LIMIT_PER_MINUTE: '1000000',
    MOHAR_ADDRESS_RATE_LIMIT_PER_MINUTE: '1000000',
    ...env,
  });
  const clock = new TestClock();
  const runtime = await openRuntime(config, clock.now);
  await bootstrapFirstAccount(runtime.ctx);
  const logs: string[] = [];
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(chunk.toString());
      done();
    },
  });
  const { app, inFlight } = await buildServerApp(runtime.ctx, { logStream });
  // Every answer is checked against the served OpenAPI documents; close() fails on a violation.
  const responseValidator = installResponseValidator(app);
  await app.ready();
  // Jobs (mail, completion, expiry) run when a test asks: runJobs() makes their timing deterministic.
  const runner = jobRunnerFor(runtime.ctx, { pollIntervalMs: 3_600_000 });

  async function request(method: string, url: string, options: RequestOptions = {}): Promise<LightMyRequestResponse> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (options.key !== undefined) headers['x-api-key'] = options.key;
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    let payload: string | Buffer | undefined;
    if (options.file) {
      const multipart = multipartBody([
        {
          field: options.file.field ?? 'file',
          filename: options.file.filename ?? 'test.pdf',
          contentType: options.file.contentType,
          bytes: options.file.bytes,
        },
      ]);
      payload = multipart.body;
      headers['content-type'] = multipart.contentType;
    } else if (options.json !== undefined) {
      payload = JSON.stringify(options.json);
      headers['content-type'] ??= 'application/json';
    }
    return app.inject({ method: method as 'GET', url, headers, ...(payload === undefined ? {} : { payload }) });
  }

  async function login(email = ADMIN_EMAIL, password = ADMIN_PASSWORD): Promise<string> {
    const response = await request('POST', `${LEGACY}/auth/login/`, { json: { email, password } });
    if (response.statusCode !== 200) throw new Error(`login failed: ${response.statusCode} ${response.body}`);
    return (response.json() as { access_token: string }).access_token;
  }

  async function generateKey(token: string, mode: 'live' | 'test'): Promise<string> {
    const response = await request('POST', `${LEGACY}/apikey/generate/`, { token, json: { mode } });
    if (response.statusCode !== 201) throw new Error(`key generation failed: ${response.statusCode} ${response.body}`);
    return (response.json() as { api_key: string }).api_key;
  }

  return {
    kind,
    app,
    ctx: runtime.ctx,
    clock,
    logs,
    responseViolations: responseValidator.violations,
    request,
    login,
    async newAccount(options = {}) {
      const email = `owner-${randomBytes(4).toString('hex')}@test.local`;
      const password = `pw-${randomBytes(12).toString('hex')}`;
      const created = await createAccount(runtime.ctx, {
        name: `Account ${email}`,
        email,
        password,
        testMode: options.testMode ?? false,
      });
      const token = await login(email, password);
      const key = await generateKey(token, 'live');
      const testKey = options.testMode ? await generateKey(token, 'test') : undefined;
      return { accountId: created.accountId, email, password, token, key, ...(testKey ? { testKey } : {}) };
    },
    runJobs: () => runner.runDueJobs(),
    async close() {
      await app.close();
      await inFlight.drain();
      await runner.stop({ timeoutMs: 10_000 });
      await runtime.close();
      await database.drop();
      responseValidator.assertNone();
    },
  };
}

/**
 * Registers before/after hooks in the current describe(): a test server on a fresh database and
 * one account with a live key. Read them from the returned holder inside tests.
 */
export function useTestServer(
  kind: DatabaseKind,
  env: Record<string, string> = {},
): { server: TestServer; account: TestAccount } {
  const holder = {} as { server: TestServer; account: TestAccount };
  before(async () => {
    holder.server = await startTestServer(kind, env);
    holder.account = await holder.server.newAccount();
  });
  after(() => holder.server?.close());
  return holder;
}
