/**
 * POST /bulk-sends contract on both databases: Idempotency-Key, every bad row listed, source state, limits,
 * replay/conflict.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DATABASES } from '../../support/databases.js';
import { sendDraft } from '../../support/envelopes.js';
import { API, useTestServer } from '../../support/server.js';
import { createSaleTemplate } from '../../support/templates.js';
import { getBulk, makeSource, postBulk, row } from './helpers.js';

for (const kind of DATABASES) {
  describe(`bulk send contract on ${kind}`, () => {
    const t = useTestServer(kind, { MOHAR_BULK_MAX_ROWS: '50' });
    const batches = async () =>
      (
        await t.server.ctx.db
          .selectFrom('bulk_sends')
          .select('id')
          .where('account_id', '=', t.account.accountId)
          .execute()
      ).length;

    test('Idempotency-Key is required: 400 idempotency_key_required, nothing queued', async () => {
      const source = await makeSource(t.server, t.account.key);
      const before = await batches();
      const response = await postBulk(t.server, t.account.key, { source_envelope_id: source.id, rows: [row(1)] }, null);
      assert.equal(response.statusCode, 400, response.body);
      assert.equal(response.json().code, 'idempotency_key_required');
      assert.equal(await batches(), before);
    });

    test('every bad row is listed by index and field; one bad row queues nothing', async () => {
      const source = await makeSource(t.server, t.account.key);
      await t.server.request('POST', `${API}/envelopes`, {
        key: t.account.key,
        json: { title: 'Taken', external_id: 'taken-1' },
      });
      const before = await batches();
      const rows = [
        row(0),
        row(1, { recipients: [{ name: 'Only one', email: 'one@example.com' }] }),
        row(2, { field_values: { Customer: 'x', Colour: 'red' } }),
        row(3, { field_values: { Amount: 'lots' } }),
        row(4, { external_id: 'cust-0' }),
        row(5, { external_id: 'taken-1' }),
        row(6, { field_values: { Start: '15/01/2027' } }),
        row(7, {
          recipients: [
            { name: 'A', email: 'a@example.com', signature_method: 'dsc' },
            { name: 'B', email: 'b@example.com', signature_method: 'dsc' },
          ],
        }),
        row(8),
      ];
      const response = await postBulk(t.server, t.account.key, { source_envelope_id: source.id, rows });
      assert.equal(response.statusCode, 422, response.body);
      const problem = response.json();
      assert.equal(problem.code, 'invalid_rows');
      const byRow = new Map<number, { path: string; code: string }[]>();
      for (const e of problem.errors) byRow.set(e.index, [...(byRow.get(e.index) ?? []), e]);
      assert.deepEqual(
        [...byRow.keys()].sort((a, b) => a - b),
        [1, 2, 3, 4, 5, 6, 7],
      );
      assert.deepEqual(
        byRow.get(1)!.map((e) => [e.path, e.code]),
        [['/rows/1/recipients', 'wrong_recipient_count']],
      );
      assert.deepEqual(
        byRow.get(2)!.map((e) => [e.path, e.code]),
        [['/rows/2/field_values/Colour', 'unknown_merge_field']],
      );
      assert.deepEqual(
        byRow.get(3)!.map((e) => e.path),
        ['/rows/3/field_values/Amount'],
      );
      assert.deepEqual(
        byRow.get(4)!.map((e) => [e.path, e.code]),
        [['/rows/4/external_id', 'duplicate_external_id']],
      );
      assert.deepEqual(
        byRow.get(5)!.map((e) => [e.path, e.code]),
        [['/rows/5/external_id', 'external_id_in_use']],
      );
      assert.deepEqual(
        byRow.get(6)!.map((e) => e.path),
        ['/rows/6/field_values/Start'],
      );
      assert.match(byRow.get(7)![0]!.code, /^dsc_rules/);
      assert.equal(await batches(), before, 'nothing queued');

      const schema = await postBulk(t.server, t.account.key, {
        source_envelope_id: source.id,
        rows: [
          row(0),
          row(1, {
            recipients: [
              { name: 'A', email: 'not-an-email' },
              { name: 'B', email: 'b@example.com' },
            ],
          }),
        ],
      });
      assert.equal(schema.statusCode, 422, schema.body);
      assert.equal(schema.json().code, 'invalid_rows');
      assert.deepEqual(
        schema.json().errors.map((e: { index: number; path: string }) => [e.index, e.path]),
        [[1, '/rows/1/recipients/0/email']],
      );
    });

    test('more rows than MOHAR_BULK_MAX_ROWS: 422 invalid_rows too_many_rows', async () => {
      const source = await makeSource(t.server, t.account.key);
      const response = await postBulk(t.server, t.account.key, {
        source_envelope_id: source.id,
        rows: Array.from({ length: 51 }, (_, i) => row(i)),
      });
      assert.equal(response.statusCode, 422, response.body);
      assert.equal(response.json().errors[0].code, 'too_many_rows');
    });

    test('the source must be a draft with a document and a valid layout: 409 bulk_source_state', async () => {
      const sent = await makeSource(t.server, t.account.key);
      await sendDraft(t.server, t.account.key, sent);
      const notDraft = await postBulk(t.server, t.account.key, { source_envelope_id: sent.id, rows: [row(1)] });
      assert.equal(notDraft.statusCode, 409, notDraft.body);
      assert.equal(notDraft.json().code, 'bulk_source_state');
      assert.equal(notDraft.json().reason, 'not_draft');
      const empty = (
        await t.server.request('POST', `${API}/envelopes`, {
          key: t.account.key,
          json: { title: 'Empty', recipients: [{ name: 'A', email: 'a@example.com' }] },
        })
      ).json();
      const noDocument = await postBulk(t.server, t.account.key, { source_envelope_id: empty.id, rows: [row(1)] });
      assert.equal(noDocument.statusCode, 409, noDocument.body);
      assert.equal(noDocument.json().reason, 'no_document');
      const missing = await postBulk(t.server, t.account.key, {
        source_envelope_id: '00000000-0000-4000-8000-000000000000',
        rows: [row(1)],
      });
      assert.equal(missing.statusCode, 404, missing.body);
    });

    test('202 with Location; the same key and body replay it; another body is 409 idempotency_conflict', async () => {
      const source = await makeSource(t.server, t.account.key);
      const body = { source_envelope_id: source.id, rows: [row(100), row(101)] };
      const first = await postBulk(t.server, t.account.key, body, 'replay-key');
      assert.equal(first.statusCode, 202, first.body);
      const accepted = first.json();
      assert.equal(accepted.status, 'queued');
      assert.equal(accepted.total_rows, 2);
      assert.equal(first.headers.location, `${API}/bulk-sends/${accepted.bulk_send_id}`);
      const again = await postBulk(t.server, t.account.key, body, 'replay-key');
      assert.equal(again.statusCode, 202);
      assert.deepEqual(again.json(), accepted);
      assert.equal(again.headers.location, first.headers.location);
      const other = await postBulk(t.server, t.account.key, { ...body, rows: [row(102)] }, 'replay-key');
      assert.equal(other.statusCode, 409, other.body);
      assert.equal(other.json().code, 'idempotency_conflict');
      assert.equal(
        (
          await t.server.ctx.db
            .selectFrom('bulk_sends')
            .select('id')
            .where('idempotency_key', '=', 'replay-key')
            .execute()
        ).length,
        1,
      );
    });

    test('a template version as the source: rows fill its roles by order, field_key values merge, envelopes pinned and sent', async () => {
      const template = await createSaleTemplate(t.server, t.account.key, 'Bulk sale');
      const people = (i: number) => [
        { name: `Seller ${i}`, email: `s${i}@example.com` },
        { name: `Buyer ${i}`, email: `b${i}@example.com` },
        { name: `Witness ${i}`, email: `x${i}@example.com` },
      ];
      const bad = await postBulk(t.server, t.account.key, {
        source_template_id: template.id,
        rows: [{ recipients: people(0), field_values: { price: 'cheap' } }],
      });
      assert.equal(bad.statusCode, 422, bad.body);
      assert.deepEqual(
        bad.json().errors.map((e: { path: string }) => e.path),
        ['/rows/0/field_values/price'],
      );
      const response = await postBulk(t.server, t.account.key, {
        source_template_id: template.id,
        template_version: 1,
        rows: [0, 1, 2].map((i) => ({ recipients: people(i), field_values: { price: 5000 + i } })),
      });
      assert.equal(response.statusCode, 202, response.body);
      const id = response.json().bulk_send_id as string;
      await t.server.runJobs();
      const batch = await getBulk(t.server, t.account.key, id);
      assert.equal(batch.status, 'completed', JSON.stringify(batch.failures));
      const rows = (await t.server.request('GET', `${API}/bulk-sends/${id}/envelopes`, { key: t.account.key })).json()
        .envelopes;
      const envelope = (
        await t.server.request('GET', `${API}/envelopes/${rows[2].envelope_id}`, { key: t.account.key })
      ).json();
      assert.equal(envelope.status, 'sent');
      assert.deepEqual(
        [envelope.template_id, envelope.template_version, envelope.bulk_send_id, envelope.row_index],
        [template.id, 1, id, 2],
      );
      assert.deepEqual(
        envelope.recipients.map((r: { email: string; role: string }) => [r.email, r.role]),
        [
          ['s2@example.com', 'signer'],
          ['b2@example.com', 'signer'],
          ['x2@example.com', 'cc'],
        ],
      );
      assert.equal(
        envelope.documents[0].fields.find((f: { label: string | null }) => f.label === 'Price').value,
        '5002',
      );
    });

    test('OpenAPI describes the bulk send routes from their schemas', async () => {
      const v1 = (await t.server.request('GET', `${API}/openapi.json`)).json();
      assert.ok(v1.paths['/bulk-sends'].post.responses['202']);
      assert.ok(v1.paths['/bulk-sends'].get);
      for (const path of ['/bulk-sends/{id}', '/bulk-sends/{id}/envelopes', '/bulk-sends/{id}/cancel']) {
        assert.ok(v1.paths[path], path);
      }
      assert.ok(v1.webhooks['bulk_send.completed']);
    });
  });
}
