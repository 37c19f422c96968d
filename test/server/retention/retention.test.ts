/**
 * Issue 29, point 6: retention. A finished envelope's documents are purged N days after it finished (the
 * account's policy, or its template's), never while on legal hold; the audit trail (still a valid chain), the
 * hashes and the certificate of completion remain; `envelope.purged` is queued once even with two runners racing;
 * the blob collector then deletes only bytes nothing else names (a PDF a template shares survives).
 *
 * Runs on every blob store in STORES (each with its database); another store is one more line there.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { verifyEnvelopeAudit } from '../../../server/audit/index.js';
import {
  RETENTION_PURGE_JOB,
  purgeDueEnvelopes,
  scheduleRetentionPurge,
} from '../../../server/domain/retention/purge-job.js';
import { enqueueJob } from '../../../server/jobs/queue.js';
import { jobRunnerFor } from '../../../server/start.js';
import { collectUnreferencedBlobs } from '../../../server/storage/blob-gc.js';
import type { DatabaseKind } from '../../support/databases.js';
import type { Draft } from '../../support/envelopes.js';
import { makePdf } from '../../support/pdf-fixtures.js';
import { startTestS3, type TestS3 } from '../../support/s3.js';
import { API, useTestServer } from '../../support/server.js';
import { PEOPLE, createSaleTemplate, instantiate } from '../../support/templates.js';
import { completedEnvelope, finishedDaysAgo } from '../../support/retention.js';

/** The blob stores under test, and the database each runs with; `s3`: a bucket on a test S3 server (s3rver). */
export const STORES: readonly { store: string; database: DatabaseKind; s3?: boolean }[] = [
  { store: 'file', database: 'sqlite' },
  { store: 'database', database: 'postgres' },
  { store: 's3', database: 'sqlite', s3: true },
];

const DAY = 24 * 3600;

for (const { store, database, s3 } of STORES) {
  describe(`retention on ${database} with the ${store} blob store`, () => {
    // The webhook receiver is a local address (no delivery is attempted: the worker does not run here).
    const env: Record<string, string> = { MOHAR_WEBHOOK_ALLOW_PRIVATE: '1' };
    let bucket: TestS3 | undefined;
    if (s3 === true) {
      // Runs before the server's own before(), which reads env when it starts the server.
      before(async () => {
        bucket = await startTestS3();
        Object.assign(env, bucket.env);
      });
      after(() => bucket?.close());
    }
    const t = useTestServer(database, env);
    const get = (path: string) => t.server.request('GET', `${API}${path}`, { key: t.account.key });

    const completed = (pdf?: Buffer) => completedEnvelope(t.server, t.account.key, pdf);

    async function voided(id: string): Promise<void> {
      const response = await t.server.request('POST', `${API}/envelopes/${id}/void`, {
        key: t.account.key,
        json: { reason: 'not needed' },
      });
      assert.equal(response.statusCode, 200, response.body);
    }

    async function purgedEvents(envelopeId: string): Promise<number> {
      const rows = await t.server.ctx.db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('envelope_id', '=', envelopeId)
        .where('event_type', '=', 'envelope.purged')
        .execute();
      const events = await t.server.ctx.db
        .selectFrom('events')
        .select('id')
        .where('envelope_id', '=', envelopeId)
        .where('type', '=', 'envelope.purged')
        .execute();
      assert.equal(rows.length, events.length, 'one delivery per event (the account has one endpoint)');
      return events.length;
    }

    let plain: Draft;
    let held: Draft;
    let fromTemplate: string;
    let templateSha: string;
    let templateId: string;
    before(async () => {
      // Deliveries are queued only for a registered endpoint.
      const hook = await t.server.request('POST', '/backend/othercompanyapi/webhook/save/', {
        token: t.account.token,
        json: { webhook_url: 'http://127.0.0.1:9/hooks' },
      });
      assert.equal(hook.statusCode < 300, true, hook.body);
      plain = await completed();
      held = await completed();
      const template = await createSaleTemplate(t.server, t.account.key, 'Loan file');
      templateId = template.id;
      templateSha = template.body.documents[0]!.sha256;
      const patched = await t.server.request('PATCH', `${API}/templates/${templateId}`, {
        key: t.account.key,
        json: { settings: { retention_days: 40 } },
      });
      assert.equal(patched.statusCode, 200, patched.body);
      const made = await instantiate(t.server, t.account.key, templateId, { recipients: PEOPLE });
      assert.equal(made.statusCode, 201, made.body);
      fromTemplate = made.json().id;
      await voided(fromTemplate);
    });

    test('off by default: nothing is purged however old', async () => {
      assert.deepEqual((await get('/account/retention')).json(), { retention_days: null });
      t.server.clock.advance(20 * DAY);
      assert.deepEqual((await purgeDueEnvelopes(t.server.ctx)).purged, []);
    });

    test('the policy: the key or an admin login sets it; bad values are refused', async () => {
      const bad = await t.server.request('PUT', `${API}/account/retention`, {
        key: t.account.key,
        json: { retention_days: 0 },
      });
      assert.equal(bad.statusCode, 422, bad.body);
      // A fresh login: the clock moved past the first one's expiry.
      const token = await t.server.login(t.account.email, t.account.password);
      const set = await t.server.request('PUT', `${API}/account/retention`, {
        token,
        json: { retention_days: 30 },
      });
      assert.equal(set.statusCode, 200, set.body);
      assert.deepEqual((await get('/account/retention')).json(), { retention_days: 30 });
      // Who changed it, in the account's audit log.
      const log = await t.server.request('GET', '/backend/othercompanyapi/audit-log/?action=retention_changed', {
        token,
      });
      assert.equal(log.statusCode, 200, log.body);
      const [entry] = log.json().items;
      assert.equal(entry.actor_email, t.account.email);
      assert.deepEqual(entry.detail, { from: null, to: 30 });
    });

    test('a legal hold: placed with a reason, shown on the envelope, audited', async () => {
      const empty = await t.server.request('PUT', `${API}/envelopes/${held.id}/legal-hold`, {
        key: t.account.key,
        json: { reason: '' },
      });
      assert.equal(empty.statusCode, 422);
      const placed = await t.server.request('PUT', `${API}/envelopes/${held.id}/legal-hold`, {
        key: t.account.key,
        json: { reason: 'Dispute 114' },
      });
      assert.equal(placed.statusCode, 200, placed.body);
      assert.equal(placed.json().legal_hold.reason, 'Dispute 114');
      assert.match(placed.json().legal_hold.placed_by, /^api_key:/);
      assert.equal(placed.json().purged_at, null);
    });

    test('after N days: purged once, even with two runners racing; the held one and the template one are not', async () => {
      // 20 days have passed; the policy is 30: not yet.
      assert.deepEqual((await purgeDueEnvelopes(t.server.ctx)).purged, []);
      t.server.clock.advance(11 * DAY);
      const [a, b] = await Promise.all([purgeDueEnvelopes(t.server.ctx), purgeDueEnvelopes(t.server.ctx)]);
      const purged = [...a.purged, ...b.purged].sort();
      assert.deepEqual(purged, [plain.id], 'the plain one, by one runner only; not the held one, nor the template one');
      assert.equal(await purgedEvents(plain.id), 1);
      assert.equal(await purgedEvents(held.id), 0);
      // The job, as scheduled, finds nothing more to do.
      await scheduleRetentionPurge(t.server.ctx.db, t.server.clock.now());
      t.server.clock.advance(3600);
      await t.server.runJobs();
      assert.equal(await purgedEvents(plain.id), 1);
    });

    test('a purged envelope: 410 documents_purged on download; hashes, audit trail and certificate remain', async () => {
      const view = (await get(`/envelopes/${plain.id}`)).json();
      assert.ok(view.purged_at);
      assert.match(view.documents[0].sha256, /^[0-9a-f]{64}$/);
      assert.match(view.documents[0].final_sha256, /^[0-9a-f]{64}$/);
      const download = await get(`/envelopes/${plain.id}/documents/${plain.documentId}/download`);
      assert.equal(download.statusCode, 410, download.body);
      assert.equal(download.json().code, 'documents_purged');
      assert.equal((await get(`/documents/${plain.documentId}/content`)).json().code, 'documents_purged');
      const certificate = await get(`/envelopes/${plain.id}/audit-trail/certificate`);
      assert.equal(certificate.statusCode, 200);
      const trail = (await get(`/envelopes/${plain.id}/audit-trail`)).json();
      assert.equal(trail.chain.ok, true);
      assert.equal(trail.events.at(-1).action, 'envelope.purged');
      assert.equal((await verifyEnvelopeAudit(t.server.ctx.db, plain.id)).ok, true);
      const hold = await t.server.request('PUT', `${API}/envelopes/${plain.id}/legal-hold`, {
        key: t.account.key,
        json: { reason: 'too late' },
      });
      assert.equal(hold.statusCode, 410);
    });

    test('the blob collector deletes the purged bytes, keeps the certificate and what a template shares', async () => {
      const before = await t.server.ctx.db
        .selectFrom('document_revisions')
        .select('sha256')
        .where('envelope_id', '=', plain.id)
        .execute();
      const view = (await get(`/envelopes/${plain.id}`)).json();
      const certificate = (
        await t.server.ctx.db
          .selectFrom('envelopes')
          .select('certificate_sha256')
          .where('id', '=', plain.id)
          .executeTakeFirstOrThrow()
      ).certificate_sha256!;
      const heldRevisions = await t.server.ctx.db
        .selectFrom('document_revisions')
        .select('sha256')
        .where('envelope_id', '=', held.id)
        .execute();
      await collectUnreferencedBlobs(t.server.ctx.db, t.server.ctx.blobs, { now: t.server.clock.now() });
      // Both envelopes were made from the same PDF: its bytes are one blob, still named by the held envelope.
      const shared = new Set(heldRevisions.map((r) => r.sha256));
      assert.ok(shared.has(view.documents[0].sha256), 'the uploaded PDF is shared by content address');
      assert.ok(
        before.some((r) => !shared.has(r.sha256)),
        'the purged envelope had revisions of its own',
      );
      for (const { sha256 } of before) {
        assert.equal(await t.server.ctx.blobs.has(sha256), shared.has(sha256), `${sha256}: kept only when shared`);
      }
      assert.equal(await t.server.ctx.blobs.has(certificate), true, 'the certificate stays');
      for (const { sha256 } of heldRevisions) assert.equal(await t.server.ctx.blobs.has(sha256), true, 'held: kept');
      assert.equal(await t.server.ctx.blobs.has(templateSha), true, 'the template PDF stays');
    });

    test('the template replaces the account policy: its envelope goes after 40 days, its PDF stays', async () => {
      t.server.clock.advance(10 * DAY); // 41 days
      const run = await purgeDueEnvelopes(t.server.ctx);
      assert.deepEqual(run.purged, [fromTemplate]);
      const event = await t.server.ctx.db
        .selectFrom('events')
        .select('payload')
        .where('envelope_id', '=', fromTemplate)
        .where('type', '=', 'envelope.purged')
        .executeTakeFirstOrThrow();
      const data = JSON.parse(event.payload).data;
      assert.equal(data.retention_days, 40);
      assert.equal(data.policy, 'template');
      await collectUnreferencedBlobs(t.server.ctx.db, t.server.ctx.blobs, { now: t.server.clock.now() });
      assert.equal(await t.server.ctx.blobs.has(templateSha), true, 'the template still names it');
      const again = await instantiate(t.server, t.account.key, templateId, { recipients: PEOPLE });
      assert.equal(again.statusCode, 201, again.body);
    });

    test('two job runners racing, each with its own due retention.purge job: the envelope is purged and announced once', async () => {
      const raced = await completed(makePdf({ pages: 4 }));
      await finishedDaysAgo(t.server, raced.id, 31);
      const now = t.server.clock.now();
      for (const slot of ['a', 'b']) {
        await enqueueJob(t.server.ctx.db, {
          kind: RETENTION_PURGE_JOB.kind,
          payload: {},
          runAt: now,
          dedupeKey: `race-${slot}`,
          now,
        });
      }
      // Two runners (each names itself host:pid:random in its leases), as two server instances would be.
      const runners = [1, 2].map(() => jobRunnerFor(t.server.ctx, { pollIntervalMs: 3_600_000 }));
      const ran = await Promise.all(runners.map((r) => r.runDueJobs()));
      assert.ok(ran.reduce((a, b) => a + b, 0) >= 2, 'both jobs ran');
      assert.equal(await purgedEvents(raced.id), 1);
      const trail = await verifyEnvelopeAudit(t.server.ctx.db, raced.id);
      assert.equal(trail.ok, true);
      const rows = await t.server.ctx.db
        .selectFrom('audit_events')
        .select('action')
        .where('envelope_id', '=', raced.id)
        .where('action', '=', 'envelope.purged')
        .execute();
      assert.equal(rows.length, 1, 'one audit row');
    });

    test('releasing the hold lets the policy purge it at the next run', async () => {
      const released = await t.server.request('DELETE', `${API}/envelopes/${held.id}/legal-hold`, {
        key: t.account.key,
      });
      assert.equal(released.statusCode, 200, released.body);
      assert.equal(released.json().legal_hold, null);
      assert.deepEqual((await purgeDueEnvelopes(t.server.ctx)).purged, [held.id]);
      const actions = (await get(`/envelopes/${held.id}/audit-trail`))
        .json()
        .events.map((e: { action: string }) => e.action);
      assert.deepEqual(actions.slice(-3), ['legal_hold.placed', 'legal_hold.released', 'envelope.purged']);
    });
  });
}
