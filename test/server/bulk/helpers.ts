/** Bulk send suites: a two-signer source draft with merge fields, rows for it, and reading PDF field values. */
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { PdfReader } from '../../../pdf/index.js';
import { PdfString, type PdfDict, type PdfRef } from '../../../pdf/objects.js';
import { makeDraft, type Draft } from '../../support/envelopes.js';
import { makePdf } from '../../support/pdf-fixtures.js';
import { call } from '../../support/process-server.js';
import { API, LEGACY, multipartBody, type TestServer } from '../../support/server.js';

/** Two signers; a Text field "Customer" and a Number field "Amount" for the first, a Date "Start" for the second. */
export function makeSource(server: TestServer, key: string): Promise<Draft> {
  return makeDraft(server, key, {
    recipients: [
      { name: 'Slot One', email: 'one@example.com' },
      { name: 'Slot Two', email: 'two@example.com' },
    ],
    extraFields: (ids) => [
      { recipient_id: ids[0], field_type: 8, page_number: 1, x: 300, y: 40, width: 200, height: 20, label: 'Customer' },
      { recipient_id: ids[0], field_type: 10, page_number: 1, x: 300, y: 80, width: 100, height: 20, label: 'Amount' },
      {
        recipient_id: ids[1],
        field_type: 11,
        page_number: 2,
        x: 300,
        y: 80,
        width: 100,
        height: 20,
        label: 'Start',
        editable: true,
      },
    ],
  });
}

/** The admin login and an API key of a `mohar serve` process started with MOHAR_ADMIN_EMAIL/PASSWORD. */
export const PROCESS_ADMIN = { MOHAR_ADMIN_EMAIL: 'admin@bulk.test', MOHAR_ADMIN_PASSWORD: 'bulk process password' };

export async function processApiKey(url: string): Promise<string> {
  const token = (
    await call(url, 'POST', `${LEGACY}/auth/login/`, {
      json: { email: PROCESS_ADMIN.MOHAR_ADMIN_EMAIL, password: PROCESS_ADMIN.MOHAR_ADMIN_PASSWORD },
    })
  ).json().access_token as string;
  return (await call(url, 'POST', `${LEGACY}/apikey/generate/`, { token })).json().api_key as string;
}

/** makeSource's draft over HTTP, on a server process (1 page unless told: what the benchmark's source is). */
export async function makeSourceOverHttp(
  url: string,
  key: string,
  pages = 1,
): Promise<{ id: string; documentId: string }> {
  const created = await call(url, 'POST', `${API}/envelopes`, {
    key,
    json: {
      title: 'Agreement',
      message: 'Please sign',
      recipients: [
        { name: 'Slot One', email: 'one@example.com' },
        { name: 'Slot Two', email: 'two@example.com' },
      ],
    },
  });
  assert.equal(created.status, 201, created.bytes.toString());
  const envelope = created.json();
  const upload = multipartBody([{ field: 'file', filename: 'agreement.pdf', bytes: makePdf({ pages }) }]);
  const documentId = (
    await call(url, 'POST', `${API}/envelopes/${envelope.id}/documents`, {
      key,
      body: upload.body,
      contentType: upload.contentType,
    })
  ).json().document_id as string;
  const [one, two] = envelope.recipients.map((r: { recipient_id: string }) => r.recipient_id);
  const fields = [
    { recipient_id: one, field_type: 1, page_number: 1, x: 40, y: 40, width: 180, height: 50 },
    { recipient_id: two, field_type: 1, page_number: 1, x: 40, y: 120, width: 180, height: 50 },
    { recipient_id: one, field_type: 8, page_number: 1, x: 300, y: 40, width: 200, height: 20, label: 'Customer' },
    { recipient_id: one, field_type: 10, page_number: 1, x: 300, y: 80, width: 100, height: 20, label: 'Amount' },
    {
      recipient_id: two,
      field_type: 11,
      page_number: 1,
      x: 300,
      y: 120,
      width: 100,
      height: 20,
      label: 'Start',
      editable: true,
    },
  ];
  const put = await call(url, 'PUT', `${API}/envelopes/${envelope.id}/documents/${documentId}/fields`, {
    key,
    json: { fields },
  });
  assert.equal(put.status, 200, put.bytes.toString());
  return { id: envelope.id, documentId };
}

export function row(i: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    external_id: `cust-${i}`,
    title: `Agreement ${i}`,
    metadata: { customer: i },
    recipients: [
      { name: `Customer ${i}`, email: `c${i}@example.com` },
      { name: `Witness ${i}`, email: `w${i}@example.com` },
    ],
    field_values: { Customer: `Customer number ${i}`, Amount: 1000 + i, Start: '2027-01-15' },
    ...extra,
  };
}

let counter = 0;
export function postBulk(
  server: TestServer,
  key: string,
  body: unknown,
  idempotencyKey: string | null = `bulk-${process.pid}-${counter++}`,
): Promise<LightMyRequestResponse> {
  return server.request('POST', `${API}/bulk-sends`, {
    key,
    json: body,
    headers: idempotencyKey === null ? {} : { 'idempotency-key': idempotencyKey },
  });
}

export interface BulkJson {
  bulk_send_id: string;
  status: string;
  counts: { total: number; created: number; sent: number; failed: number; canceled: number; pending: number };
  failures: { row_index: number; code: string; message: string }[];
  completed_at: string | null;
}

export async function getBulk(server: TestServer, key: string, id: string): Promise<BulkJson> {
  const response = await server.request('GET', `${API}/bulk-sends/${id}`, { key });
  assert.equal(response.statusCode, 200, response.body);
  return response.json() as BulkJson;
}

/** How many envelopes exist per row of the batch (every value must be 1). */
export async function envelopesPerRow(server: TestServer, bulkSendId: string): Promise<Map<number, number>> {
  const rows = await server.ctx.db
    .selectFrom('envelopes')
    .select(['row_index'])
    .where('bulk_send_id', '=', bulkSendId)
    .execute();
  const per = new Map<number, number>();
  for (const r of rows) per.set(Number(r.row_index), (per.get(Number(r.row_index)) ?? 0) + 1);
  return per;
}

/** Every text (/V string) value of the AcroForm fields of a PDF. */
export function formTextValues(bytes: Uint8Array): string[] {
  const r = PdfReader.open(bytes);
  const values: string[] = [];
  const walk = (node: unknown): void => {
    const d = r.resolve(node as PdfRef) as PdfDict;
    const v = d.get('V');
    if (v instanceof PdfString) values.push(v.toText());
    for (const k of r.getArray(d, 'Kids')?.items ?? []) walk(k);
  };
  for (const f of r.getArray(r.getDict(r.catalog, 'AcroForm'), 'Fields')?.items ?? []) walk(f);
  return values;
}
