/**
 * An instantiated draft keeps its field layout by reference to the template version (server/domain/envelopes/
 * field-rows.ts): no rows in `fields` until its layout or recipients change or it is sent, and to every reader the
 * same fields, by the same ids, before and after. On both databases.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DATABASES } from '../../support/databases.js';
import { makePdf } from '../../support/pdf-fixtures.js';
import { API, useTestServer, type TestServer } from '../../support/server.js';
import { FIELDS, instantiate, jsonPart, multipart, PEOPLE, ROLES } from '../../support/templates.js';

interface FieldJson {
  field_id: string;
  recipient_id: string;
  field_type: number;
  value: string | null;
}
interface EnvelopeJson {
  id: string;
  status: string;
  recipients: { recipient_id: string; email: string }[];
  documents: { document_id: string; fields: FieldJson[] }[];
}

const ANNEX_FIELDS = [
  { role_key: 'seller', field_type: 11, page_number: 1, x: 72, y: 100, width: 150, height: 20, label: 'Date' },
  { field_key: 'clause', role_key: 'buyer', field_type: 8, page_number: 1, x: 72, y: 140, width: 200, height: 20 },
];

/** Two documents: the sale agreement (3 fields) and an annex (2 fields). */
async function twoDocumentTemplate(server: TestServer, key: string): Promise<string> {
  const response = await multipart(server, 'POST', `${API}/templates`, key, [
    jsonPart('template', {
      name: 'Sale with annex',
      roles: ROLES,
      documents: [
        { file: 'contract', fields: FIELDS },
        { file: 'annex', fields: ANNEX_FIELDS },
      ],
    }),
    { field: 'contract', filename: 'sale.pdf', bytes: makePdf({ pages: 2 }) },
    { field: 'annex', filename: 'annex.pdf', bytes: makePdf({ pages: 1 }) },
  ]);
  assert.equal(response.statusCode, 201, response.body);
  return response.json().template_id;
}

for (const kind of DATABASES) {
  describe(`an instantiated draft's layout by reference on ${kind}`, () => {
    const t = useTestServer(kind);
    const call = (method: string, path: string, json?: unknown) =>
      t.server.request(method, `${API}${path}`, { key: t.account.key, ...(json === undefined ? {} : { json }) });
    const read = async (id: string): Promise<EnvelopeJson> => {
      const response = await call('GET', `/envelopes/${id}`);
      assert.equal(response.statusCode, 200, response.body);
      return response.json();
    };
    const storedRows = async (id: string) => {
      const [rows, envelope] = await Promise.all([
        t.server.ctx.db.selectFrom('fields').select('id').where('envelope_id', '=', id).execute(),
        t.server.ctx.db.selectFrom('envelopes').select('pending_layout').where('id', '=', id).executeTakeFirstOrThrow(),
      ]);
      return { ids: rows.map((r) => r.id).sort(), byReference: envelope.pending_layout !== null };
    };
    const fieldsOf = (e: EnvelopeJson) => e.documents.flatMap((d) => d.fields);
    const newDraft = async (templateId: string): Promise<EnvelopeJson> => {
      const response = await instantiate(t.server, t.account.key, templateId, {
        recipients: PEOPLE,
        field_values: { price: '1200', clause: 'as agreed' },
      });
      assert.equal(response.statusCode, 201, response.body);
      return response.json();
    };

    test('no field rows are written; every read shows the answer’s fields, by the same ids and values', async () => {
      const templateId = await twoDocumentTemplate(t.server, t.account.key);
      const draft = await newDraft(templateId);
      assert.deepEqual(await storedRows(draft.id), { ids: [], byReference: true });
      const fields = fieldsOf(draft);
      assert.equal(fields.length, FIELDS.length + ANNEX_FIELDS.length);
      assert.equal(new Set(fields.map((f) => f.field_id)).size, fields.length, 'ids are distinct');
      for (const f of fields) {
        assert.match(f.field_id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      }
      assert.deepEqual((await read(draft.id)).documents, draft.documents);
      assert.deepEqual((await read(draft.id)).documents, draft.documents, 'the same on every read');
      assert.deepEqual(
        fields.filter((f) => f.value !== null).map((f) => f.value),
        ['1200', 'as agreed'],
      );
      const buyer = draft.recipients.find((r) => r.email === PEOPLE.buyer.email)!.recipient_id;
      assert.equal(fields.find((f) => f.value === '1200')!.recipient_id, buyer, 'the role’s recipient has the field');

      const another = await newDraft(templateId);
      const otherIds = new Set(fieldsOf(another).map((f) => f.field_id));
      assert.ok(
        fields.every((f) => !otherIds.has(f.field_id)),
        'two drafts of one version have different field ids',
      );

      // A template made from the draft sees its fields too.
      const copy = await call('POST', '/templates', { source_envelope_id: draft.id, name: 'Copy' });
      assert.equal(copy.statusCode, 201, copy.body);
      assert.deepEqual(
        copy.json().documents.map((d: { fields: unknown[] }) => d.fields.length),
        [FIELDS.length, ANNEX_FIELDS.length],
      );
    });

    test('replacing one document’s fields writes the rows: the other document keeps its fields, ids and values', async () => {
      const draft = await newDraft(await twoDocumentTemplate(t.server, t.account.key));
      const [contract, annex] = draft.documents;
      const seller = draft.recipients.find((r) => r.email === PEOPLE.seller.email)!.recipient_id;
      const put = await call('PUT', `/envelopes/${draft.id}/documents/${annex!.document_id}/fields`, {
        fields: [{ recipient_id: seller, field_type: 8, page_number: 1, x: 300, y: 300, width: 100, height: 20 }],
      });
      assert.equal(put.statusCode, 200, put.body);
      const after = await read(draft.id);
      assert.deepEqual(after.documents[0], contract, 'the contract’s fields are as they were');
      assert.equal(after.documents[1]!.fields.length, 1);
      const stored = await storedRows(draft.id);
      assert.equal(stored.byReference, false);
      assert.deepEqual(
        stored.ids,
        fieldsOf(after)
          .map((f) => f.field_id)
          .sort(),
      );
    });

    test('removing a recipient or detaching a document writes the rows first; the rest keep their fields', async () => {
      const draft = await newDraft(await twoDocumentTemplate(t.server, t.account.key));
      const buyer = draft.recipients.find((r) => r.email === PEOPLE.buyer.email)!.recipient_id;
      const removed = await call('DELETE', `/envelopes/${draft.id}/recipients/${buyer}`);
      assert.equal(removed.statusCode, 200, removed.body);
      const withoutBuyer = fieldsOf(draft).filter((f) => f.recipient_id !== buyer);
      assert.deepEqual(fieldsOf(await read(draft.id)), withoutBuyer);
      assert.deepEqual((await storedRows(draft.id)).ids, withoutBuyer.map((f) => f.field_id).sort());

      const other = await newDraft(await twoDocumentTemplate(t.server, t.account.key));
      const annexId = other.documents[1]!.document_id;
      const detached = await call('DELETE', `/envelopes/${other.id}/documents/${annexId}`);
      assert.equal(detached.statusCode, 200, detached.body);
      assert.deepEqual((await read(other.id)).documents, [other.documents[0]]);
      assert.deepEqual(await storedRows(other.id), {
        ids: other.documents[0]!.fields.map((f) => f.field_id).sort(),
        byReference: false,
      });
    });

    test('a recipient change that breaks the layout is refused as for written fields', async () => {
      const draft = await newDraft(await twoDocumentTemplate(t.server, t.account.key));
      const seller = draft.recipients.find((r) => r.email === PEOPLE.seller.email)!.recipient_id;
      const response = await call('PATCH', `/envelopes/${draft.id}/recipients/${seller}`, {
        role: 'cc',
        signature_method: 'review',
      });
      assert.equal(response.statusCode, 422, response.body);
      assert.equal(response.json().code, 'invalid_field_layout');
      assert.deepEqual((await read(draft.id)).documents, draft.documents);
      assert.deepEqual(await storedRows(draft.id), { ids: [], byReference: true }, 'nothing was written');
    });

    test('two changes at once write the rows once', async () => {
      const draft = await newDraft(await twoDocumentTemplate(t.server, t.account.key));
      const seller = draft.recipients.find((r) => r.email === PEOPLE.seller.email)!.recipient_id;
      const field = { recipient_id: seller, field_type: 8, page_number: 1, x: 300, y: 300, width: 100, height: 20 };
      const put = (documentId: string) =>
        call('PUT', `/envelopes/${draft.id}/documents/${documentId}/fields`, { fields: [field] });
      const answers = await Promise.all(draft.documents.map((d) => put(d.document_id)));
      for (const answer of answers) assert.equal(answer.statusCode, 200, answer.body);
      const after = await read(draft.id);
      assert.deepEqual(
        after.documents.map((d) => d.fields.length),
        [1, 1],
      );
      assert.deepEqual(await storedRows(draft.id), {
        ids: fieldsOf(after)
          .map((f) => f.field_id)
          .sort(),
        byReference: false,
      });
    });

    test('sending writes the rows with the same ids and values', async () => {
      const draft = await newDraft(await twoDocumentTemplate(t.server, t.account.key));
      const sent = await call('POST', `/envelopes/${draft.id}/send`);
      assert.equal(sent.statusCode, 200, sent.body);
      assert.equal((await read(draft.id)).status, 'sent');
      assert.deepEqual(
        (await read(draft.id)).documents.map((d) => d.fields),
        draft.documents.map((d) => d.fields),
      );
      assert.deepEqual(await storedRows(draft.id), {
        ids: fieldsOf(draft)
          .map((f) => f.field_id)
          .sort(),
        byReference: false,
      });
    });

    test('the key’s row keeps the answer without its fields; a replay answers the same bytes, after changes too', async () => {
      const templateId = await twoDocumentTemplate(t.server, t.account.key);
      const body = { recipients: PEOPLE, field_values: { price: '1200' } };
      const first = await instantiate(t.server, t.account.key, templateId, body, `stored-${kind}`);
      assert.equal(first.statusCode, 201, first.body);
      const draft: EnvelopeJson = first.json();
      const row = await t.server.ctx.db
        .selectFrom('idempotency_keys')
        .select('response_body')
        .where('key', '=', `stored-${kind}`)
        .executeTakeFirstOrThrow();
      const fieldsJson = JSON.stringify(draft.documents.map((d) => d.fields)).length;
      assert.ok(
        row.response_body!.length < first.body.length - fieldsJson + 200,
        `${row.response_body!.length} of ${first.body.length}, fields ${fieldsJson}`,
      );
      assert.ok(!row.response_body!.includes(fieldsOf(draft)[0]!.field_id), 'no field is stored');
      const seller = draft.recipients.find((r) => r.email === PEOPLE.seller.email)!.recipient_id;
      const put = await call('PUT', `/envelopes/${draft.id}/documents/${draft.documents[0]!.document_id}/fields`, {
        fields: [{ recipient_id: seller, field_type: 1, page_number: 1, x: 72, y: 600, width: 180, height: 50 }],
      });
      assert.equal(put.statusCode, 200, put.body);
      const replay = await instantiate(t.server, t.account.key, templateId, body, `stored-${kind}`);
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.equal(replay.body, first.body, 'the answer as it was, not the draft as it is now');
    });
  });
}
