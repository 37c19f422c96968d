/**
 * Issue 32 point 1: an Aadhaar eSign act racing a decline of the same recipient, and the other recipient's last
 * act. Exactly one of the eSign act and the decline wins; the loser gets the refusal the other acts give (the
 * decline 409/410, the eSign `document_changed`), and the recipient, the envelope, the revisions and the audit
 * chain agree with the winner. Before commitAct the Aadhaar commit read the actors without the envelope lock
 * (decision 28): its recipient claim kept a decline from being overwritten, but on PostgreSQL it routed on what it
 * had read before an act committed ahead of it, so the last two acts each thought another was pending and the
 * envelope never completed; and it wrote the client details by hand, without `reached_by`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { verifyEnvelopeAudit } from '../../../server/audit/store.js';
import { DATABASES } from '../../support/databases.js';
import { makeDraft, sendDraft } from '../../support/envelopes.js';
import { startTestEsp, type TestEsp } from '../../support/esp.js';
import { API, startTestServer, type TestAccount, type TestServer } from '../../support/server.js';

const ROUNDS = 6;

for (const kind of DATABASES) {
  describe(`Aadhaar eSign racing a decline on ${kind}`, () => {
    let esp: TestEsp;
    let server: TestServer;
    let account: TestAccount;
    before(async () => {
      esp = await startTestEsp();
      server = await startTestServer(kind, { ...esp.env, MOHAR_DSC_TRUST_ANCHORS: esp.trustAnchorPath });
      account = await server.newAccount();
    });
    after(async () => {
      await server?.close();
      await esp?.close();
    });

    async function tokenFor(envelopeId: string, recipientId: string): Promise<string> {
      const created = await server.request('POST', `${API}/envelopes/${envelopeId}/signing-sessions`, {
        key: account.key,
        json: { recipient_id: recipientId, mode: 'redirect' },
      });
      assert.equal(created.statusCode, 201, created.body);
      return (created.json().signing_url as string).split('/sign/')[1]!;
    }

    /** A sent envelope, the racer's ESP answer ready to post back, and a second link of the racer's to decline. */
    async function ready(otherRole: 'signer' | 'approver' = 'signer') {
      // A second signer keeps the envelope open whoever wins, so the loser meets the recipient's state.
      const draft = await makeDraft(server, account.key, {
        recipients: [
          { name: 'Test Signer', email: 'signer@example.com', signature_method: 'aadhaar' },
          { name: 'Other', email: 'other@example.com', role: otherRole },
        ],
        routing_order: 'parallel',
      });
      await sendDraft(server, account.key, draft);
      const racer = draft.recipientIds[0]!;
      const [signToken, declineToken] = [await tokenFor(draft.id, racer), await tokenFor(draft.id, racer)];
      const started = await server.request('POST', `${API}/signing/${signToken}/aadhaar`, {
        json: { consent: true, fields: {} },
      });
      assert.equal(started.statusCode, 200, started.body);
      const answer = await esp.complete(started.json().form);
      assert.ok(answer.fields, answer.html.slice(0, 300));
      const deliver = () =>
        server.app.inject({
          method: 'POST',
          url: '/sign/aadhaar/response',
          payload: new URLSearchParams(answer.fields).toString(),
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'test-browser/1.0' },
        });
      const decline = () =>
        server.request('POST', `${API}/signing/${declineToken}`, {
          json: { action: 'decline', decline_reason: 'changed my mind' },
        });
      const otherToken = await tokenFor(draft.id, draft.recipientIds[1]!);
      return { envelopeId: draft.id, racer, otherToken, deliver, decline };
    }

    /** Transactions of the test database waiting on a lock (PostgreSQL). */
    async function lockWaiters(count: number): Promise<void> {
      const waiting = async () =>
        Number(
          (
            await sql<{ n: string }>`select count(*) as n from pg_stat_activity
              where datname = current_database() and wait_event_type = 'Lock'`.execute(server.ctx.db)
          ).rows[0]!.n,
        );
      for (let i = 0; i < 500 && (await waiting()) < count; i++) await sleep(20);
      assert.ok((await waiting()) >= count, `${count} transactions wait on a lock`);
    }

    /** Holds the envelope's row (SELECT … FOR UPDATE) until released, so that commits queue behind it in order. */
    async function holdEnvelope(envelopeId: string): Promise<{ release: () => Promise<void> }> {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let locked!: () => void;
      const isLocked = new Promise<void>((resolve) => (locked = resolve));
      const holder = server.ctx.db.transaction().execute(async (trx) => {
        await trx.selectFrom('envelopes').select('id').where('id', '=', envelopeId).forUpdate().execute();
        locked();
        await held;
      });
      await isLocked;
      return {
        release: async () => {
          release();
          await holder;
        },
      };
    }

    type Answer = Awaited<ReturnType<Awaited<ReturnType<typeof ready>>['deliver']>>;

    /** Exactly one won, the loser was refused clearly, and the stored state and trail agree with the winner. */
    async function judge(envelopeId: string, racer: string, signed: Answer, declined: Answer, label: string) {
      const location = String(signed.headers.location ?? '');
      assert.equal(signed.statusCode, 303, `${label}: the eSign answer is a redirect, not a failure: ${signed.body}`);
      const signWon = /aadhaar=signed/.test(location);
      if (!signWon) assert.match(location, /aadhaar=failed&reason=document_changed/, label);
      assert.equal(
        [signWon, declined.statusCode === 200].filter(Boolean).length,
        1,
        `${label}: exactly one wins: ${location} / ${declined.statusCode} ${declined.body}`,
      );
      if (signWon) assert.ok([409, 410].includes(declined.statusCode), `${label}: ${declined.body}`);

      const recipient = await server.ctx.db
        .selectFrom('recipients')
        .select(['status', 'decline_reason', 'act_details'])
        .where('id', '=', racer)
        .executeTakeFirstOrThrow();
      const envelope = await server.ctx.db
        .selectFrom('envelopes')
        .select('status')
        .where('id', '=', envelopeId)
        .executeTakeFirstOrThrow();
      const events = (
        await server.ctx.db
          .selectFrom('events')
          .select('type')
          .where('envelope_id', '=', envelopeId)
          .orderBy('sequence')
          .execute()
      ).map((e) => e.type);
      const revisions = await server.ctx.db
        .selectFrom('document_revisions')
        .select('act')
        .where('envelope_id', '=', envelopeId)
        .where('act', '=', 'signed')
        .execute();
      if (signWon) {
        assert.equal(recipient.status, 'signed', `${label}: the act stands`);
        assert.equal(recipient.decline_reason, null);
        assert.equal(envelope.status, 'sent');
        assert.ok(events.includes('recipient.signed'), events.join());
        assert.ok(!events.includes('recipient.declined') && !events.includes('envelope.declined'), events.join());
        assert.equal(revisions.length, 1);
        const details = JSON.parse(recipient.act_details!) as Record<string, unknown>;
        assert.equal(details.method, 'aadhaar');
        assert.equal(details.reached_by, 'signing_session', 'recorded through the client details every act records');
        assert.equal(details.user_agent, 'test-browser/1.0');
      } else {
        assert.equal(recipient.status, 'declined', `${label}: the decline stands`);
        assert.equal(envelope.status, 'declined');
        assert.ok(events.includes('recipient.declined') && events.includes('envelope.declined'), events.join());
        assert.ok(!events.includes('recipient.signed'), events.join());
        assert.equal(revisions.length, 0, 'the document did not move');
      }
      const chain = await verifyEnvelopeAudit(server.ctx.db, envelopeId);
      assert.equal(chain.ok, true, `${label}: the audit chain verifies: ${JSON.stringify(chain)}`);
      return signWon;
    }

    test('the ESP answer and a decline at once, over a spread of delays: one wins, the state agrees', async () => {
      // The answer's checks (CMS, chain, embedding, allow-list) run before its commit; the decline meets them.
      for (let round = 0; round < ROUNDS; round++) {
        const { envelopeId, racer, deliver, decline } = await ready();
        const [signed, declined] = await Promise.all([deliver(), sleep(round * 50).then(decline)]);
        await judge(envelopeId, racer, signed, declined, `delay ${round * 50} ms`);
      }
    });

    test('an uncontested ESP answer records how the signer was reached, then a decline is refused', async () => {
      const { envelopeId, racer, deliver, decline } = await ready();
      const signed = await deliver();
      assert.equal(await judge(envelopeId, racer, signed, await decline(), 'one after the other'), true);
    });

    test(
      'the decline takes the envelope first while the eSign commit is under way: the act waits, then is refused',
      { skip: kind !== 'postgres' && 'PostgreSQL only: SQLite runs one write transaction at a time' },
      async () => {
        const { envelopeId, racer, deliver, decline } = await ready();
        const lock = await holdEnvelope(envelopeId);
        const declining = decline();
        await lockWaiters(1);
        const signing = deliver();
        await lockWaiters(2);
        await lock.release();
        const [signed, declined] = await Promise.all([signing, declining]);
        assert.equal(await judge(envelopeId, racer, signed, declined, 'decline first'), false);
        assert.equal(declined.statusCode, 200);
      },
    );

    test(
      "the other recipient's last act commits first: the eSign act sees it and the envelope completes",
      { skip: kind !== 'postgres' && 'PostgreSQL only: SQLite runs one write transaction at a time' },
      async () => {
        // The approver holds no fields, so their act leaves the documents as the eSign revision was built on.
        const { envelopeId, racer, otherToken, deliver } = await ready('approver');
        const lock = await holdEnvelope(envelopeId);
        const approving = server.request('POST', `${API}/signing/${otherToken}`, {
          json: { action: 'approve', consent: true },
        });
        await lockWaiters(1);
        // Unlocked, the eSign commit read the recipients now (the approver still active) and never saw the
        // approval: neither act was the last, so nothing completed the envelope.
        const signing = deliver();
        await lockWaiters(2);
        await lock.release();
        const [approved, signed] = await Promise.all([approving, signing]);
        assert.equal(approved.statusCode, 200, approved.body);
        assert.match(String(signed.headers.location), /aadhaar=signed/, signed.body);
        const recipients = await server.ctx.db
          .selectFrom('recipients')
          .select(['id', 'status'])
          .where('envelope_id', '=', envelopeId)
          .execute();
        assert.equal(recipients.find((r) => r.id === racer)!.status, 'signed');
        const envelope = await server.ctx.db
          .selectFrom('envelopes')
          .select('status')
          .where('id', '=', envelopeId)
          .executeTakeFirstOrThrow();
        assert.equal(envelope.status, 'completed', 'the last act knew it was the last');
        assert.equal((await verifyEnvelopeAudit(server.ctx.db, envelopeId)).ok, true);
      },
    );
  });
}
