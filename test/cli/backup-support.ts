/** Helpers of the backup suites: the CLI as an async child (a server keeps being driven meanwhile), and envelopes. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TestDatabase } from '../support/databases.js';
import { mohar } from '../support/cli.js';
import { makePdf } from '../support/pdf-fixtures.js';
import { call } from '../support/process-server.js';
import { API, multipartBody } from '../support/server.js';

const root = new URL('../../', import.meta.url).pathname;

export const PASSPHRASE = 'correct horse battery staple';

export interface CliResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `mohar …args` on a test installation, `stdin` as its standard input (the passphrase's first line). */
export function runCli(database: TestDatabase, args: string[], stdin = ''): Promise<CliResult> {
  const child = spawn(process.execPath, mohar(...args), {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      MOHAR_LOG_LEVEL: 'warn',
      MOHAR_DATA_DIR: database.dataDir,
      ...(database.databaseUrl ? { MOHAR_DATABASE_URL: database.databaseUrl } : {}),
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(stdin);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`mohar ${args.join(' ')} timed out: ${stdout}${stderr}`));
    }, 120_000);
    child.on('exit', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

const upload = multipartBody([{ field: 'file', filename: 'a.pdf', bytes: makePdf({ pages: 1 }) }]);

/** A one-signer envelope, created, with a document and a signature field, sent; returns its id and signer. */
export async function sentEnvelope(url: string, key: string, title: string) {
  const created = await call(url, 'POST', `${API}/envelopes`, {
    key,
    json: { title, recipients: [{ name: 'Signer', email: `${title}@example.com` }] },
  });
  assert.equal(created.status, 201, created.bytes.toString());
  const id = created.json().id as string;
  const recipient = created.json().recipients[0].recipient_id as string;
  const document = await call(url, 'POST', `${API}/envelopes/${id}/documents`, {
    key,
    body: upload.body,
    contentType: upload.contentType,
  });
  assert.equal(document.status, 201, document.bytes.toString());
  const field = { recipient_id: recipient, field_type: 1, page_number: 1, x: 40, y: 40, width: 200, height: 50 };
  const documentId = document.json().document_id as string;
  const put = await call(url, 'PUT', `${API}/envelopes/${id}/documents/${documentId}/fields`, {
    key,
    json: { fields: [field] },
  });
  assert.equal(put.status, 200, put.bytes.toString());
  const send = await call(url, 'POST', `${API}/envelopes/${id}/send`, { key });
  assert.equal(send.status, 200, send.bytes.toString());
  return { id, recipient, documentId };
}

/** The envelope's one signer signs through a fresh signing session; the envelope completes. */
export async function signEnvelope(url: string, key: string, id: string, recipient: string): Promise<void> {
  const session = await call(url, 'POST', `${API}/envelopes/${id}/signing-sessions`, {
    key,
    json: { recipient_id: recipient, mode: 'redirect' },
  });
  assert.equal(session.status, 201, session.bytes.toString());
  const link = (session.json().signing_url as string).split('/sign/')[1];
  const signed = await call(url, 'POST', `${API}/signing/${link}`, {
    json: { action: 'sign', consent: true, signature: { kind: 'typed', text: 'signed' } },
  });
  assert.equal(signed.status, 200, signed.bytes.toString());
  assert.equal(signed.json().envelope_status, 'completed');
}

/** The signed PDF of a completed envelope. */
export async function signedPdf(url: string, key: string, id: string, documentId: string): Promise<Buffer> {
  const pdf = await call(url, 'GET', `${API}/envelopes/${id}/documents/${documentId}/download`, { key });
  assert.equal(pdf.status, 200, `download of ${id}: ${pdf.bytes.toString().slice(0, 200)}`);
  return pdf.bytes;
}

/** The certificate of completion, waited for: a job issues it soon after the envelope completes. */
export async function certificate(url: string, key: string, id: string): Promise<Buffer> {
  for (const deadline = Date.now() + 30_000; ; await sleep(200)) {
    const answer = await call(url, 'GET', `${API}/envelopes/${id}/audit-trail/certificate`, { key });
    if (answer.status === 200) return answer.bytes;
    assert.ok(answer.status === 409 && Date.now() < deadline, `certificate of ${id}: ${answer.bytes.toString()}`);
  }
}
