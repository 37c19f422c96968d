/**
 * The console's preview calls on both databases: POST /bulk-sends/validate answers exactly like POST
 * /bulk-sends but queues nothing; GET /bulk-sends/source-format gives the slots, merge fields and a
 * sample CSV that common/bulk-csv.ts turns back into rows the validate call accepts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { rowsFromCsv } from '../../../common/bulk-csv.js';
import { DATABASES } from '../../support/databases.js';
import { sendDraft } from '../../support/envelopes.js';
import { API, useTestServer } from '../../support/server.js';
import { createSaleTemplate } from '../../support/templates.js';
import { makeSource, postBulk, row } from './helpers.js';

for (const kind of DATABASES) {
  describe(`bulk send preview on ${kind}`, () => {
    const t = useTestServer(kind);
    const validate = (body: unknown, key = t.account.key) =>
      t.server.request('POST', `${API}/bulk-sends/validate`, { key, json: body });
    const format = (query: string, key = t.account.key) =>
      t.server.request('GET', `${API}/bulk-sends/source-format?${query}`, { key });
    const batches = async () => (await t.server.ctx.db.selectFrom('bulk_sends').select('id').execute()).length;

    test('validate: 200 { valid, total_rows } without an Idempotency-Key, the same 422 as POST for bad rows, nothing queued', async () => {
      const source = await makeSource(t.server, t.account.key);
      const before = await batches();
      const ok = await validate({ source_envelope_id: source.id, rows: [row(1), row(2)] });
      assert.equal(ok.statusCode, 200, ok.body);
      assert.deepEqual(ok.json(), { valid: true, total_rows: 2 });
      const body = {
        source_envelope_id: source.id,
        rows: [
          row(1),
          row(2, { field_values: { Amount: 'lots' } }),
          row(3, {
            recipients: [
              { name: 'A', email: 'nope' },
              { name: 'B', email: 'b@example.com' },
            ],
          }),
        ],
      };
      const bad = await validate(body);
      assert.equal(bad.statusCode, 422, bad.body);
      assert.equal(bad.json().code, 'invalid_rows');
      assert.deepEqual(
        bad.json().errors.map((e: { index: number; path: string }) => [e.index, e.path]),
        [[2, '/rows/2/recipients/0/email']],
        'schema errors come first, as on POST',
      );
      const semantic = await validate({ ...body, rows: body.rows.slice(0, 2) });
      const posted = await postBulk(t.server, t.account.key, { ...body, rows: body.rows.slice(0, 2) });
      assert.equal(semantic.statusCode, 422);
      assert.deepEqual(semantic.json().errors, posted.json().errors, 'the same items as POST /bulk-sends');
      assert.equal(await batches(), before, 'validate queues nothing');
      const sent = await makeSource(t.server, t.account.key);
      await sendDraft(t.server, t.account.key, sent);
      const state = await validate({ source_envelope_id: sent.id, rows: [row(1)] });
      assert.equal(state.statusCode, 409);
      assert.equal(state.json().reason, 'not_draft');
      const other = await t.server.newAccount();
      assert.equal((await validate({ source_envelope_id: source.id, rows: [row(1)] }, other.key)).statusCode, 404);
    });

    test('source-format of a draft: slots, merge fields and a sample CSV that validates once read back', async () => {
      const source = await makeSource(t.server, t.account.key);
      const response = await format(`source_envelope_id=${source.id}`);
      assert.equal(response.statusCode, 200, response.body);
      const f = response.json();
      assert.deepEqual(f.source, { kind: 'envelope', id: source.id, version: null, title: f.source.title });
      assert.deepEqual(
        f.recipient_slots.map((s: { slot: number; label: string; role: string }) => [s.slot, s.label, s.role]),
        [
          [1, 'Slot One', 'signer'],
          [2, 'Slot Two', 'signer'],
        ],
      );
      assert.deepEqual(
        f.merge_fields.map((m: { key: string; type: string; slot: number }) => [m.key, m.type, m.slot]),
        [
          ['Customer', 'text', 1],
          ['Amount', 'number', 1],
          ['Start', 'date', 2],
        ],
      );
      assert.equal(f.sample_csv.split('\r\n')[0], f.columns.join(','));
      const parsed = rowsFromCsv(f.sample_csv, f);
      assert.deepEqual(parsed.errors, []);
      const check = await validate({ source_envelope_id: source.id, rows: parsed.rows });
      assert.equal(check.statusCode, 200, check.body);
      assert.equal(
        (await format(`source_envelope_id=${source.id}`, (await t.server.newAccount()).key)).statusCode,
        404,
      );
      const neither = await format('');
      assert.equal(neither.statusCode, 422, neither.body);
    });

    test('source-format of a template: roles as slots with role_key, field_key as the key and the label as alias', async () => {
      const template = await createSaleTemplate(t.server, t.account.key, 'Format sale');
      const f = (await format(`source_template_id=${template.id}&template_version=1`)).json();
      assert.deepEqual(f.source.version, 1);
      assert.deepEqual(
        f.recipient_slots.map((s: { role_key: string; label: string; role: string }) => [s.role_key, s.label, s.role]),
        [
          ['seller', 'Seller', 'signer'],
          ['buyer', 'Buyer', 'signer'],
          ['witness', 'Witness', 'cc'],
        ],
      );
      assert.deepEqual(f.merge_fields, [
        {
          key: 'price',
          aliases: ['Price'],
          label: 'Price',
          type: 'number',
          field_type: 10,
          slot: 2,
          required: true,
          options: null,
        },
      ]);
      const parsed = rowsFromCsv(f.sample_csv, f);
      const check = await validate({ source_template_id: template.id, rows: parsed.rows });
      assert.equal(check.statusCode, 200, check.body);
    });

    test('OpenAPI describes the preview calls', async () => {
      const v1 = (await t.server.request('GET', `${API}/openapi.json`)).json();
      assert.ok(v1.paths['/bulk-sends/validate'].post.responses['200']);
      assert.ok(v1.paths['/bulk-sends/source-format'].get.responses['200']);
    });
  });
}
