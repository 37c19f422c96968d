/**
 * The fan-out on both databases: 1,000 rows with merge values become 1,000 sent envelopes, each once, each
 * with its own values in its PDF's form fields; the source draft and its bytes are unchanged; paging,
 * bulk_send.completed through the outbox, cancel, and cross-account 404.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runChunk } from '../../../server/domain/bulk/run-chunk.js';
import { DATABASES } from '../../support/databases.js';
import { API, LEGACY, useTestServer } from '../../support/server.js';
import { envelopesPerRow, formTextValues, getBulk, makeSource, postBulk, row } from './helpers.js';

const ROWS = 1000;

for (const kind of DATABASES) {
  describe(`bulk send fan-out on ${kind}`, () => {
    // A webhook on 127.0.0.1 (nothing listens: only the outbox rows are looked at).
    const t = useTestServer(kind, { MOHAR_WEBHOOK_ALLOW_PRIVATE: '1' });
    const get = (path: string, key = t.account.key) => t.server.request('GET', `${API}${path}`, { key });

    test(`${ROWS} rows: every envelope once, sent, its own values in its PDF fields; the source unchanged`, async () => {
      const source = await makeSource(t.server, t.account.key);
      const sourceBefore = (await get(`/envelopes/${source.id}`)).json();
      const response = await postBulk(t.server, t.account.key, {
        source_envelope_id: source.id,
        rows: Array.from({ length: ROWS }, (_, i) => row(i)),
      });
      assert.equal(response.statusCode, 202, response.body);
      const id = response.json().bulk_send_id as string;
      assert.equal((await getBulk(t.server, t.account.key, id)).status, 'queued');
      await t.server.runJobs();

      const batch = await getBulk(t.server, t.account.key, id);
      assert.equal(batch.status, 'completed', JSON.stringify(batch.failures.slice(0, 3)));
      assert.deepEqual(batch.counts, { total: ROWS, created: ROWS, sent: ROWS, failed: 0, canceled: 0, pending: 0 });
      assert.ok(batch.completed_at);
      const per = await envelopesPerRow(t.server, id);
      assert.equal(per.size, ROWS);
      assert.ok(
        [...per.values()].every((n) => n === 1),
        'one envelope per row',
      );

      // Paging through the rows with a cursor.
      const listed: { row_index: number; status: string; envelope_status: string; envelope_id: string }[] = [];
      let cursor: string | null = null;
      do {
        const page = (
          await get(`/bulk-sends/${id}/envelopes?limit=300${cursor ? `&cursor=${cursor}` : ''}`)
        ).json() as { envelopes: typeof listed; next_cursor: string | null };
        assert.ok(page.envelopes.length <= 300);
        listed.push(...page.envelopes);
        cursor = page.next_cursor;
      } while (cursor !== null);
      assert.deepEqual(
        listed.map((e: { row_index: number }) => e.row_index),
        Array.from({ length: ROWS }, (_, i) => i),
      );
      assert.ok(
        listed.every(
          (e: { status: string; envelope_status: string }) => e.status === 'sent' && e.envelope_status === 'sent',
        ),
      );
      assert.equal(new Set(listed.map((e: { envelope_id: string }) => e.envelope_id)).size, ROWS);

      // Each envelope: its own recipients, title, metadata, bulk_send_id/row_index, and its own values in the PDF.
      for (const i of [0, 1, 99, 150, 777, ROWS - 1]) {
        const envelope = (await get(`/envelopes/${listed[i]!.envelope_id}`)).json();
        assert.equal(envelope.bulk_send_id, id);
        assert.equal(envelope.row_index, i);
        assert.equal(envelope.title, `Agreement ${i}`);
        assert.equal(envelope.external_id, `cust-${i}`);
        assert.deepEqual(envelope.metadata, { customer: i });
        assert.deepEqual(
          envelope.recipients.map((r: { email: string }) => r.email),
          [`c${i}@example.com`, `w${i}@example.com`],
        );
        const fields = envelope.documents[0].fields;
        assert.equal(
          fields.find((f: { label: string }) => f.label === 'Start').editable,
          true,
          'editable follows the source',
        );
        assert.equal(fields.find((f: { label: string }) => f.label === 'Customer').editable, false);
        assert.equal(
          envelope.documents[0].document_id,
          source.documentId,
          'the same content-addressed document, not a copy',
        );
        const current = await t.server.ctx.db
          .selectFrom('envelope_documents')
          .select('current_sha256')
          .where('envelope_id', '=', envelope.id)
          .executeTakeFirstOrThrow();
        const values = formTextValues(await t.server.ctx.blobs.get(current.current_sha256!));
        assert.ok(values.includes(`Customer number ${i}`), `row ${i}: ${values.join(', ')}`);
        assert.ok(values.includes(String(1000 + i)), `row ${i}: amount`);
        assert.ok(values.includes('2027-01-15'), `row ${i}: start`);
        assert.ok(!values.includes(`Customer number ${i === 0 ? 1 : 0}`), "no other row's value");
      }

      // The source draft: same JSON, same bytes, still a draft.
      assert.deepEqual((await get(`/envelopes/${source.id}`)).json(), sourceBefore);
      const content = await get(`/documents/${source.documentId}/content`);
      assert.deepEqual(content.rawPayload, source.pdf);
      const documents = await t.server.ctx.db
        .selectFrom('documents')
        .select('id')
        .where('account_id', '=', t.account.accountId)
        .execute();
      assert.equal(documents.length, 1, 'no document copied per row');

      // Each envelope has its own events, as a POST /envelopes one: envelope.created (sequence 1), then envelope.sent.
      const perType = await t.server.ctx.db
        .selectFrom('events')
        .innerJoin('envelopes', 'envelopes.id', 'events.envelope_id')
        .select(['events.type', 'events.sequence'])
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('envelopes.bulk_send_id', '=', id)
        .groupBy(['events.type', 'events.sequence'])
        .orderBy('events.sequence')
        .execute();
      assert.deepEqual(
        perType.map((e) => [e.type, Number(e.sequence), Number(e.n)]),
        [
          ['envelope.created', 1, ROWS],
          ['envelope.sent', 2, ROWS],
        ],
      );

      // bulk_send.completed through the outbox, once.
      const events = await t.server.ctx.db
        .selectFrom('events')
        .select(['type', 'payload'])
        .where('account_id', '=', t.account.accountId)
        .where('type', '=', 'bulk_send.completed')
        .execute();
      assert.equal(events.length, 1);
      assert.equal(JSON.parse(events[0]!.payload).data.bulk_send.id, id);
      const failed = await t.server.ctx.db
        .selectFrom('events')
        .select('id')
        .where('account_id', '=', t.account.accountId)
        .where('type', '=', 'bulk_send.failed')
        .execute();
      assert.equal(failed.length, 0, 'no bulk_send.failed when no row failed');
      const listing = (await get('/bulk-sends')).json();
      assert.ok(
        listing.bulk_sends.some(
          (b: { bulk_send_id: string; counts: { sent: number } }) => b.bulk_send_id === id && b.counts.sent === ROWS,
        ),
      );
    });

    test('rows that fail at send time: completed_with_errors, bulk_send.completed then bulk_send.failed (counts, reasons, failed rows) through the outbox', async () => {
      const owner = await t.server.newAccount();
      const saved = await t.server.request('POST', `${LEGACY}/webhook/save/`, {
        token: owner.token,
        json: { webhook_url: 'http://127.0.0.1:9/mohar' },
      });
      assert.equal(saved.statusCode, 200, saved.body);
      const source = await makeSource(t.server, owner.key);
      const response = await postBulk(t.server, owner.key, {
        source_envelope_id: source.id,
        rows: Array.from({ length: 6 }, (_, i) => row(7000 + i)),
      });
      assert.equal(response.statusCode, 202, response.body);
      const id = response.json().bulk_send_id as string;
      // Accepted, then two external_ids are taken before the job reaches their rows.
      for (const taken of ['cust-7001', 'cust-7004']) {
        assert.equal(
          (
            await t.server.request('POST', `${API}/envelopes`, {
              key: owner.key,
              json: { title: 'Taken', external_id: taken },
            })
          ).statusCode,
          201,
        );
      }
      await t.server.runJobs();
      const batch = await getBulk(t.server, owner.key, id);
      assert.equal(batch.status, 'completed_with_errors');
      assert.deepEqual([batch.counts.sent, batch.counts.failed], [4, 2]);
      const events = await t.server.ctx.db
        .selectFrom('events')
        .select(['id', 'type', 'sequence', 'payload'])
        .where('account_id', '=', owner.accountId)
        .where('type', 'like', 'bulk_send.%')
        .orderBy('sequence')
        .execute();
      assert.deepEqual(
        events.map((e) => [e.type, Number(e.sequence)]),
        [
          ['bulk_send.completed', 1],
          ['bulk_send.failed', 2],
        ],
      );
      const failed = JSON.parse(events[1]!.payload).data;
      assert.equal(failed.bulk_send.id, id);
      assert.equal(failed.bulk_send.status, 'completed_with_errors');
      assert.deepEqual([failed.bulk_send.counts.failed, failed.bulk_send.counts.sent], [2, 4]);
      assert.deepEqual(failed.reasons, [{ code: 'external_id_conflict', count: 2 }]);
      assert.deepEqual(
        failed.failures.map((f: { row_index: number; external_id: string; code: string }) => [
          f.row_index,
          f.external_id,
          f.code,
        ]),
        [
          [1, 'cust-7001', 'external_id_conflict'],
          [4, 'cust-7004', 'external_id_conflict'],
        ],
      );
      assert.equal(failed.failures_truncated, false);
      const deliveries = await t.server.ctx.db
        .selectFrom('webhook_deliveries')
        .select('event_id')
        .where(
          'event_id',
          'in',
          events.map((e) => e.id),
        )
        .execute();
      assert.equal(deliveries.length, 2, "both events queued for the account's webhook");
    });

    test('cancel stops the rows not yet created; the others stay sent', async () => {
      const source = await makeSource(t.server, t.account.key);
      const response = await postBulk(t.server, t.account.key, {
        source_envelope_id: source.id,
        rows: Array.from({ length: 60 }, (_, i) => row(1000 + i)),
      });
      const id = response.json().bulk_send_id as string;
      await runChunk(t.server.ctx, { bulk_send_id: id, from: 0 });
      const canceled = await t.server.request('POST', `${API}/bulk-sends/${id}/cancel`, { key: t.account.key });
      assert.equal(canceled.statusCode, 200, canceled.body);
      assert.equal(canceled.json().status, 'canceled');
      await t.server.runJobs();
      const batch = await getBulk(t.server, t.account.key, id);
      assert.equal(batch.status, 'canceled');
      assert.deepEqual(batch.counts, { total: 60, created: 25, sent: 25, failed: 0, canceled: 35, pending: 0 });
      assert.equal((await envelopesPerRow(t.server, id)).size, 25);
      const again = await t.server.request('POST', `${API}/bulk-sends/${id}/cancel`, { key: t.account.key });
      assert.equal(again.statusCode, 409);
      assert.equal(again.json().code, 'bulk_send_finished');
    });

    test("another account: 404 on every bulk send route, and cannot fan out this account's draft", async () => {
      const source = await makeSource(t.server, t.account.key);
      const id = (await postBulk(t.server, t.account.key, { source_envelope_id: source.id, rows: [row(5000)] })).json()
        .bulk_send_id as string;
      const other = await t.server.newAccount();
      for (const [method, path] of [
        ['GET', `/bulk-sends/${id}`],
        ['GET', `/bulk-sends/${id}/envelopes`],
        ['POST', `/bulk-sends/${id}/cancel`],
      ] as const) {
        const response = await t.server.request(method, `${API}${path}`, { key: other.key });
        assert.equal(response.statusCode, 404, `${method} ${path}`);
        assert.equal(response.json().code, 'bulk_send_not_found');
      }
      assert.equal((await get('/bulk-sends', other.key)).json().bulk_sends.length, 0);
      const stolen = await postBulk(t.server, other.key, { source_envelope_id: source.id, rows: [row(5001)] });
      assert.equal(stolen.statusCode, 404, stolen.body);
      assert.equal(
        (
          await t.server.ctx.db
            .selectFrom('bulk_sends')
            .select('id')
            .where('account_id', '=', other.accountId)
            .execute()
        ).length,
        0,
      );
      await t.server.runJobs();
    });

    test('10,000 rows (the default MOHAR_BULK_MAX_ROWS) fit the body limit and are accepted in one call; cancel cancels them all', async () => {
      const source = await makeSource(t.server, t.account.key);
      const rows = Array.from({ length: 10_000 }, (_, i) => row(20_000 + i));
      const started = Date.now();
      const response = await postBulk(t.server, t.account.key, { source_envelope_id: source.id, rows });
      assert.equal(response.statusCode, 202, response.body.slice(0, 500));
      assert.equal(response.json().total_rows, 10_000);
      const id = response.json().bulk_send_id as string;
      const canceled = await t.server.request('POST', `${API}/bulk-sends/${id}/cancel`, { key: t.account.key });
      assert.equal(canceled.json().counts.canceled, 10_000);
      assert.ok(Date.now() - started < 60_000, `accepting 10,000 rows took ${Date.now() - started} ms`);
      await t.server.runJobs();
      assert.equal((await envelopesPerRow(t.server, id)).size, 0);
    });
  });
}
