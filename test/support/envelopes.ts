/** Builds envelopes through the real API for workflow tests: draft, document, fields, optionally sent. */
import assert from 'node:assert/strict';
import { makePdf } from './pdf-fixtures.js';
import { API, type TestServer } from './server.js';

export interface RecipientSpec {
  name: string;
  email: string;
  role?: string;
  signature_method?: string;
  sequence?: number;
}

export interface DraftOptions {
  recipients: RecipientSpec[];
  routing_order?: 'sequential' | 'parallel';
  expire_in_days?: number;
  pdf?: Buffer;
  /** Extra fields per recipient index (a Signature field is added for every signer automatically). */
  extraFields?: (ids: string[]) => unknown[];
  /** More members of the create body (e.g. reminders, delivery). */
  body?: Record<string, unknown>;
}

export interface Draft {
  id: string;
  documentId: string;
  recipientIds: string[];
  pdf: Buffer;
}

export async function makeDraft(server: TestServer, key: string, options: DraftOptions): Promise<Draft> {
  const created = await server.request('POST', `${API}/envelopes`, {
    key,
    json: {
      title: 'Agreement',
      message: 'Please sign',
      recipients: options.recipients,
      routing_order: options.routing_order ?? 'sequential',
      ...(options.expire_in_days ? { expire_in_days: options.expire_in_days } : {}),
      ...(options.body ?? {}),
    },
  });
  assert.equal(created.statusCode, 201, created.body);
  const envelope = created.json();
  const pdf = options.pdf ?? makePdf({ pages: 2 });
  const document = await server.request('POST', `${API}/envelopes/${envelope.id}/documents`, {
    key,
    file: { bytes: pdf },
  });
  assert.equal(document.statusCode, 201, document.body);
  const ids = envelope.recipients.map((r: { recipient_id: string }) => r.recipient_id) as string[];
  const signatures = options.recipients.flatMap((r, i) =>
    (r.role ?? 'signer') === 'signer'
      ? [
          {
            recipient_id: ids[i],
            field_type: 1,
            page_number: 1,
            x: 40 + i * 10,
            y: 40 + i * 70,
            width: 180,
            height: 50,
          },
        ]
      : [],
  );
  const fields = [...signatures, ...(options.extraFields?.(ids) ?? [])];
  const put = await server.request(
    'PUT',
    `${API}/envelopes/${envelope.id}/documents/${document.json().document_id}/fields`,
    { key, json: { fields } },
  );
  assert.equal(put.statusCode, 200, put.body);
  return { id: envelope.id, documentId: document.json().document_id, recipientIds: ids, pdf };
}

export async function sendDraft(server: TestServer, key: string, draft: Draft) {
  const response = await server.request('POST', `${API}/envelopes/${draft.id}/send`, { key });
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}

/**
 * A sent envelope whose first recipient signs with a USB DSC, as far as their desktop gets before signing: the
 * signing API base of the document, the prepared bytes (GET …/prepared) and the name of their signature field.
 */
export async function dscPrepared(
  server: TestServer,
  key: string,
  options: DraftOptions,
): Promise<{ draft: Draft; base: string; prepared: Buffer; field: string }> {
  const draft = await makeDraft(server, key, options);
  await sendDraft(server, key, draft);
  const session = await server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
    key,
    json: { recipient_id: draft.recipientIds[0], mode: 'redirect' },
  });
  const base = `${API}/signing/${session.json().signing_url.split('/sign/')[1] as string}/documents/${draft.documentId}`;
  const prepared = await server.request('GET', `${base}/prepared`);
  assert.equal(prepared.statusCode, 200, prepared.body);
  const field = decodeURIComponent(String(prepared.headers['x-mohar-signature-field']));
  return { draft, base, prepared: prepared.rawPayload, field };
}
