/**
 * The office side of the smoke test, over HTTP against the app's embedded server (the test process must not load
 * the server's modules: better-sqlite3 is built for Electron there). The administrator logs in, takes an API key,
 * and sends a one-page envelope to a DSC signer; then the test reads its status and final PDF.
 */
import assert from 'node:assert/strict';

const API = '/backend/api/v1';
const LEGACY = '/backend/othercompanyapi';

export interface Office {
  readonly origin: string;
  readonly key: string;
}

async function json(response: Response, expected: number, what: string): Promise<Record<string, unknown>> {
  const text = await response.text();
  assert.equal(response.status, expected, `${what}: ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

export async function officeAs(origin: string, email: string, password: string): Promise<Office> {
  const login = await json(
    await fetch(`${origin}${LEGACY}/auth/login/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    }),
    200,
    'login',
  );
  const generated = await json(
    await fetch(`${origin}${LEGACY}/apikey/generate/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${String(login.access_token)}`, 'content-type': 'application/json' },
      body: JSON.stringify({ mode: 'live' }),
    }),
    201,
    'API key',
  );
  return { origin, key: String(generated.api_key) };
}

function call(office: Office, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${office.origin}${API}${path}`, {
    method,
    headers: { 'x-api-key': office.key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

export interface SentEnvelope {
  readonly id: string;
  readonly documentId: string;
  /** The recipient's signing page (on MOHAR_BASE_URL). */
  readonly signingUrl: string;
}

/** Draft, document, one signature field, send, and a signing session for the one DSC recipient. */
export async function sendDscEnvelope(
  office: Office,
  recipient: { name: string; email: string },
  pdf: Buffer,
): Promise<SentEnvelope> {
  const envelope = await json(
    await call(office, 'POST', '/envelopes', {
      title: 'Desktop smoke test',
      message: 'Please sign with your USB token',
      recipients: [{ ...recipient, signature_method: 'dsc' }],
      routing_order: 'sequential',
    }),
    201,
    'create envelope',
  );
  const id = String(envelope.id);
  const recipientId = (envelope.recipients as { recipient_id: string }[])[0]!.recipient_id;
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), 'test.pdf');
  const document = await json(
    await fetch(`${office.origin}${API}/envelopes/${id}/documents`, {
      method: 'POST',
      headers: { 'x-api-key': office.key },
      body: form,
    }),
    201,
    'upload document',
  );
  const documentId = String(document.document_id);
  const field = { recipient_id: recipientId, field_type: 1, page_number: 1, x: 40, y: 40, width: 180, height: 50 };
  await json(
    await call(office, 'PUT', `/envelopes/${id}/documents/${documentId}/fields`, { fields: [field] }),
    200,
    'fields',
  );
  await json(await call(office, 'POST', `/envelopes/${id}/send`), 200, 'send');
  const session = await json(
    await call(office, 'POST', `/envelopes/${id}/signing-sessions`, { recipient_id: recipientId, mode: 'redirect' }),
    201,
    'signing session',
  );
  return { id, documentId, signingUrl: String(session.signing_url) };
}

/** Waits until the envelope is completed (completion may run as a job), then downloads its document. */
export async function completedDocument(office: Office, envelope: SentEnvelope, timeoutMs = 60_000): Promise<Buffer> {
  const deadline = Date.now() + timeoutMs;
  let status = '';
  while (Date.now() < deadline) {
    status = String((await json(await call(office, 'GET', `/envelopes/${envelope.id}/status`), 200, 'status')).status);
    if (status === 'completed') {
      const download = await call(office, 'GET', `/envelopes/${envelope.id}/documents/${envelope.documentId}/download`);
      assert.equal(download.status, 200);
      return Buffer.from(await download.arrayBuffer());
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`the envelope is ${status}, not completed, after ${timeoutMs} ms`);
}
