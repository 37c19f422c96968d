/** Builds templates through the real API for the template suites. */
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { makePdf } from './pdf-fixtures.js';
import { API, multipartBody, type TestServer } from './server.js';

export const ROLES = [
  { role_key: 'seller', label: 'Seller', role: 'signer' },
  { role_key: 'buyer', label: 'Buyer', role: 'signer' },
  { role_key: 'witness', label: 'Witness', role: 'cc' },
];

export const FIELDS = [
  { role_key: 'seller', field_type: 1, page_number: 2, x: 72, y: 600, width: 180, height: 50 },
  { role_key: 'buyer', field_type: 1, page_number: 2, x: 300, y: 600, width: 180, height: 50 },
  {
    field_key: 'price',
    role_key: 'buyer',
    field_type: 10,
    page_number: 1,
    x: 300,
    y: 200,
    width: 120,
    height: 20,
    label: 'Price',
  },
];

export interface Part {
  field: string;
  filename?: string;
  bytes: Uint8Array;
  contentType?: string;
}

/** A multipart request with several parts (server.request sends one file only). */
export function multipart(
  server: TestServer,
  method: 'POST' | 'PATCH',
  url: string,
  key: string,
  parts: Part[],
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  const body = multipartBody(
    parts.map((p) => ({
      ...p,
      ...(p.filename === undefined && p.contentType === undefined ? {} : { filename: p.filename ?? 'file.pdf' }),
    })),
  );
  return server.app.inject({
    method,
    url,
    headers: { 'x-api-key': key, 'content-type': body.contentType, ...headers },
    payload: body.body,
  });
}

export function jsonPart(field: string, value: unknown): Part {
  return { field, bytes: Buffer.from(JSON.stringify(value)) };
}

export interface Created {
  id: string;
  body: Record<string, unknown> & {
    version: number;
    documents: { document_id: string; sha256: string; fields: unknown[] }[];
  };
  pdf: Buffer;
}

/** A two-page sale agreement with seller, buyer (signers) and a witness (cc). */
export async function createSaleTemplate(
  server: TestServer,
  key: string,
  name = 'Sale agreement',
  pdf = makePdf({ pages: 2 }),
): Promise<Created> {
  const response = await multipart(server, 'POST', `${API}/templates`, key, [
    jsonPart('template', {
      name,
      description: 'Standard sale',
      settings: { message: 'Please sign', expire_in_days: 14 },
      roles: ROLES,
      documents: [{ file: 'contract', fields: FIELDS }],
    }),
    { field: 'contract', filename: 'sale.pdf', bytes: pdf },
  ]);
  assert.equal(response.statusCode, 201, response.body);
  const body = response.json();
  return { id: body.template_id, body, pdf };
}

export const PEOPLE = {
  seller: { name: 'Asha Rao', email: 'asha@example.com' },
  buyer: { name: 'Vikram Shah', email: 'vikram@example.com' },
  witness: { name: 'Kiran', email: 'kiran@example.com' },
};

let counter = 0;
export function instantiate(
  server: TestServer,
  key: string,
  templateId: string,
  body: Record<string, unknown>,
  idempotencyKey = `k-${Date.now()}-${counter++}`,
): Promise<LightMyRequestResponse> {
  return server.request('POST', `${API}/templates/${templateId}/instantiate`, {
    key,
    json: body,
    headers: { 'idempotency-key': idempotencyKey },
  });
}
