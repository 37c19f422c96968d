/**
 * Issue 16 point 8a: a decline racing an act on the same recipient. Exactly one of them wins; the other is
 * refused (409 or 410) and the recipient, the envelope and the trail agree with the winner. Before the fix the
 * decline overwrote an approval or signature committed meanwhile on PostgreSQL.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DATABASES } from '../../support/databases.js';
import { makeDraft, sendDraft } from '../../support/envelopes.js';
import { API, useTestServer } from '../../support/server.js';

const ROUNDS_CHEAP = 24;
const ROUNDS_SIGN = 6;

for (const kind of DATABASES) {
  describe(`decline racing an act on ${kind}`, () => {
    const t = useTestServer(kind);

    async function linkFor(envelopeId: string, recipientId: string): Promise<string> {
      const response = await t.server.request('POST', `${API}/envelopes/${envelopeId}/signing-sessions`, {
        key: t.account.key,
        json: { recipient_id: recipientId, mode: 'redirect' },
      });
      assert.equal(response.statusCode, 201, response.body);
      return (response.json().signing_url as string).split('/sign/')[1]!;
    }

    /** One round: the racing recipient gets two links (the page open twice), one acts, the other declines. */
    async function race(role: 'approver' | 'signer', delayMs: number): Promise<void> {
      // A second signer keeps the envelope open whoever wins, so the loser meets the recipient's state.
      const draft = await makeDraft(t.server, t.account.key, {
        recipients: [
          { name: 'Racer', email: 'racer@example.com', role },
          { name: 'Other', email: 'other@example.com' },
        ],
        routing_order: 'parallel',
      });
      await sendDraft(t.server, t.account.key, draft);
      const racer = draft.recipientIds[0]!;
      const [actLink, declineLink] = [await linkFor(draft.id, racer), await linkFor(draft.id, racer)];
      const actBody =
        role === 'approver'
          ? { action: 'approve', consent: true }
          : { action: 'sign', consent: true, signature: { kind: 'typed', text: 'Racer' } };
      const [act, declined] = await Promise.all([
        t.server.request('POST', `${API}/signing/${actLink}`, { json: actBody }),
        new Promise((resolve) => setTimeout(resolve, delayMs)).then(() =>
          t.server.request('POST', `${API}/signing/${declineLink}`, {
            json: { action: 'decline', decline_reason: 'changed my mind' },
          }),
        ),
      ]);
      const statuses = [act.statusCode, declined.statusCode];
      assert.equal(
        statuses.filter((s) => s === 200).length,
        1,
        `exactly one wins (delay ${delayMs} ms): ${act.statusCode} ${act.body} / ${declined.statusCode} ${declined.body}`,
      );
      const loser = act.statusCode === 200 ? declined : act;
      assert.ok(loser.statusCode === 409 || loser.statusCode === 410, loser.body);

      const recipient = await t.server.ctx.db
        .selectFrom('recipients')
        .select(['status', 'decline_reason'])
        .where('id', '=', racer)
        .executeTakeFirstOrThrow();
      const envelope = await t.server.ctx.db
        .selectFrom('envelopes')
        .select('status')
        .where('id', '=', draft.id)
        .executeTakeFirstOrThrow();
      const events = (
        await t.server.ctx.db
          .selectFrom('events')
          .select('type')
          .where('envelope_id', '=', draft.id)
          .orderBy('sequence')
          .execute()
      ).map((e) => e.type);
      const actedEvent = role === 'approver' ? 'recipient.approved' : 'recipient.signed';
      if (act.statusCode === 200) {
        assert.equal(
          recipient.status,
          role === 'approver' ? 'approved' : 'signed',
          `the act won, so it stands (delay ${delayMs} ms)`,
        );
        assert.equal(recipient.decline_reason, null);
        assert.equal(envelope.status, 'sent');
        assert.ok(events.includes(actedEvent));
        assert.ok(!events.includes('recipient.declined') && !events.includes('envelope.declined'), events.join());
      } else {
        assert.equal(recipient.status, 'declined');
        assert.equal(envelope.status, 'declined');
        assert.ok(events.includes('recipient.declined') && events.includes('envelope.declined'));
        assert.ok(!events.includes(actedEvent), events.join());
      }
    }

    test('approve and decline at once, many times: one wins, the other is refused, the state agrees', async () => {
      for (let round = 0; round < ROUNDS_CHEAP; round++) await race('approver', round % 6);
    });

    test('sign and decline at once: one wins, the other is refused, the state agrees', async () => {
      // The sign act does its PDF work first; the decline is fired over a spread of delays to meet its commit.
      for (let round = 0; round < ROUNDS_SIGN; round++) await race('signer', round * 15);
    });
  });
}
