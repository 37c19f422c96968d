/**
 * What follows a committed act (domain/workflow/settle-act.ts): completion tried at once after the last act, a
 * failure logged through the Context's logger while the act stands (the envelope.complete job retries), and the
 * envelope row read once for completion and the answer alike (statements counted through a Kysely plugin).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KyselyPlugin, OperationNode } from 'kysely';
import type { Context } from '../../../server/domain/context.js';
import { quietLogger, type Logger } from '../../../server/domain/logger.js';
import { decline } from '../../../server/domain/workflow/decide-act.js';
import { signElectronically } from '../../../server/domain/workflow/electronic-act.js';
import { resolveSession, type ResolvedSession } from '../../../server/domain/workflow/sessions.js';
import { settleAct } from '../../../server/domain/workflow/settle-act.js';
import { DATABASES } from '../../support/databases.js';
import { makeDraft, sendDraft } from '../../support/envelopes.js';
import { API, useTestServer } from '../../support/server.js';

const CLIENT = { ip: '127.0.0.1', userAgent: 'settle-act test' };
const SIGN = { consent: true, signature: { kind: 'typed' as const, text: 'Asha Rao' } };

/** SELECTs that read the envelopes table (its FROM or a join, subqueries included), counted per statement. */
function envelopeReadCounter(): { plugin: KyselyPlugin; reads: () => number } {
  let reads = 0;
  const readsEnvelopes = (node: OperationNode): boolean => {
    const select = node as { from?: { froms: OperationNode[] }; joins?: { table: OperationNode }[] };
    const tables = [...(select.from?.froms ?? []), ...(select.joins ?? []).map((j) => j.table)];
    return tables.some((t) => JSON.stringify(t).includes('"name":"envelopes"'));
  };
  const walk = (value: unknown): void => {
    if (typeof value !== 'object' || value === null) return;
    if ((value as OperationNode).kind === 'SelectQueryNode' && readsEnvelopes(value as OperationNode)) reads++;
    for (const child of Object.values(value)) walk(child);
  };
  return {
    plugin: {
      transformQuery: ({ node }) => {
        walk(node);
        return node;
      },
      transformResult: async ({ result }) => result,
    },
    reads: () => reads,
  };
}

for (const kind of DATABASES) {
  describe(`settling an act on ${kind}`, () => {
    const t = useTestServer(kind);

    /** A sent envelope and a resolved signing session of each of its recipients, in order. */
    const sentEnvelope = async (names: string[]): Promise<{ id: string; sessions: ResolvedSession[] }> => {
      const draft = await makeDraft(t.server, t.account.key, {
        recipients: names.map((name) => ({ name, email: `${name.toLowerCase()}@example.com` })),
        routing_order: 'parallel',
      });
      await sendDraft(t.server, t.account.key, draft);
      const sessions: ResolvedSession[] = [];
      for (const recipientId of draft.recipientIds) {
        const link = await t.server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
          key: t.account.key,
          json: { recipient_id: recipientId, mode: 'redirect' },
        });
        assert.equal(link.statusCode, 201, link.body);
        const token = String(link.json().signing_url).split('/sign/')[1]!;
        sessions.push(await resolveSession(t.server.ctx, token));
      }
      return { id: draft.id, sessions };
    };

    const status = async (envelopeId: string) =>
      (await t.server.request('GET', `${API}/envelopes/${envelopeId}/status`, { key: t.account.key })).json().status;

    test('the last act completes the envelope at once; the envelope row is read once (and locked by the audit)', async () => {
      const envelope = await sentEnvelope(['Asha']);
      const result = await signElectronically(t.server.ctx, envelope.sessions[0]!, SIGN, CLIENT);
      assert.deepEqual(result, { status: 'signed', envelopeFinished: true });
      const counter = envelopeReadCounter();
      const ctx: Context = { ...t.server.ctx, db: t.server.ctx.db.withPlugin(counter.plugin) };
      assert.deepEqual(await settleAct(ctx, envelope.id, result), { status: 'completed', redirectUrl: null });
      // One read for completion and the answer, and the audit trail's lock on the row as completion appends to the
      // chain (audit/store.ts). Before settle-act.ts: four (completion's own two, the answer's, the audit lock).
      // Besides them the documents' read joins the envelope, for a status that agrees with their bytes (a completion
      // by the job may commit after the first read: complete-envelope.ts, completion-race.test.ts).
      assert.equal(
        counter.reads(),
        3,
        'one read of the envelope row, besides the documents snapshot and the audit lock',
      );
      assert.equal(await status(envelope.id), 'completed');
    });

    test('an act that is not the last one, or a decline, completes nothing: one read, the envelope as it is', async () => {
      const envelope = await sentEnvelope(['Asha', 'Ravi']);
      // A seal that fails: any completion tried here would fail and be logged.
      const warnings: string[] = [];
      const counter = envelopeReadCounter();
      const ctx: Context = {
        ...t.server.ctx,
        db: t.server.ctx.db.withPlugin(counter.plugin),
        seal: () => Promise.reject(new Error('no seal in this test')),
        log: { ...quietLogger, warn: (_object, message) => warnings.push(message) },
      };
      const signed = await signElectronically(t.server.ctx, envelope.sessions[0]!, SIGN, CLIENT);
      assert.deepEqual(signed, { status: 'signed', envelopeFinished: false });
      assert.deepEqual(await settleAct(ctx, envelope.id, signed), { status: 'sent', redirectUrl: null });
      assert.equal(counter.reads(), 1);
      const declined = await decline(t.server.ctx, envelope.sessions[1]!, 'not mine to sign', CLIENT);
      assert.deepEqual(declined, { status: 'declined', envelopeFinished: true });
      assert.deepEqual(await settleAct(ctx, envelope.id, declined), { status: 'declined', redirectUrl: null });
      assert.deepEqual(warnings, [], 'no completion was tried');
    });

    test("a completion that fails is logged through the Context's logger; the act stands and the job completes", async () => {
      const envelope = await sentEnvelope(['Asha']);
      const result = await signElectronically(t.server.ctx, envelope.sessions[0]!, SIGN, CLIENT);
      const logged: { level: string; object: object; message: string }[] = [];
      const log: Logger = {
        info: (object, message) => logged.push({ level: 'info', object, message }),
        warn: (object, message) => logged.push({ level: 'warn', object, message }),
        error: (object, message) => logged.push({ level: 'error', object, message }),
      };
      const ctx: Context = { ...t.server.ctx, seal: () => Promise.reject(new Error('the seal is unavailable')), log };
      assert.deepEqual(await settleAct(ctx, envelope.id, result), { status: 'sent', redirectUrl: null });
      assert.equal(logged.length, 1);
      const [entry] = logged as [(typeof logged)[number]];
      assert.equal(entry.level, 'warn');
      assert.equal(entry.message, 'completion failed; the envelope.complete job will retry it');
      const { err, envelopeId } = entry.object as { err: Error; envelopeId: string };
      assert.equal(envelopeId, envelope.id);
      assert.match(err.message, /the seal is unavailable/);
      assert.equal(await status(envelope.id), 'sent', 'the act stands; the envelope waits for the job');
      await t.server.runJobs();
      assert.equal(await status(envelope.id), 'completed', 'the envelope.complete job retried it');
    });
  });
}
