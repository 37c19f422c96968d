/**
 * A Mohar server as a separate process (`mohar serve`), for tests that kill, restart or configure it like an operator.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { TestDatabase } from './databases.js';
import { mohar } from './cli.js';

const root = new URL('../../', import.meta.url).pathname;

/** Starts `mohar serve` as its own process on a test database; resolves with its URL once it listens. */
export function serveProcess(
  database: TestDatabase,
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; url: string; output: string }> {
  const child = spawn(process.execPath, mohar('serve'), {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      MOHAR_PORT: '0',
      MOHAR_DATA_DIR: database.dataDir,
      ...(database.databaseUrl ? { MOHAR_DATABASE_URL: database.databaseUrl } : {}),
      MOHAR_LOG_LEVEL: 'warn',
      MOHAR_RATE_LIMIT_PER_MINUTE: '1000000',
      MOHAR_TOKEN_RATE_LIMIT_PER_MINUTE: '1000000',
      MOHAR_ADDRESS_RATE_LIMIT_PER_MINUTE: '1000000',
      ...env,
    },
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${output}`)), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Mohar office server on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: match[1]!, output });
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${output}`)));
  });
}

/** One HTTP request to a process server (JSON or raw body). */
export async function call(
  url: string,
  method: string,
  path: string,
  options: {
    key?: string;
    token?: string;
    json?: unknown;
    body?: Buffer;
    contentType?: string;
    headers?: Record<string, string>;
  } = {},
) {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers['x-api-key'] = options.key;
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | Buffer | undefined;
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  } else if (options.body) {
    headers['content-type'] = options.contentType!;
    body = options.body;
  }
  const response = await fetch(`${url}${path}`, { method, headers, ...(body ? { body } : {}) });
  const bytes = Buffer.from(await response.arrayBuffer());
  return { status: response.status, bytes, json: () => JSON.parse(bytes.toString()) };
}
