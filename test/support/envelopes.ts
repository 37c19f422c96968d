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
