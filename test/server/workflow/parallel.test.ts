/** Parallel signers acting at the same moment on one document: both acts land, each in its own revision. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { verifyPdf } from '../../../pdf/verify/index.js';
import { DATABASES } from '../../support/databases.js';
import { makeDraft, sendDraft } from '../../support/envelopes.js';
import { API, useTestServer } from '../../support/server.js';
import { pdfsigVerdicts } from '../../support/validators.js';

for (const kind of DATABASES) {
  describe(`parallel signers on ${kind}`, () => {
    const t = useTestServer(kind);

    test('three signers at once: all signed, every signature valid, completed once', async () => {
      const people = ['Asha', 'Ravi', 'Meera'].map((name) => ({ name, email: `${name.toLowerCase()}@example.com` }));
      const draft = await makeDraft(t.server, t.account.key, { recipients: people, routing_order: 'parallel' });
      await sendDraft(t.server, t.account.key, draft);
      const links = await Promise.all(
        draft.recipientIds.map(
          async (id) =>
            (
              await t.server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
                key: t.account.key,
                json: { recipient_id: id, mode: 'redirect' },
              })
            )
              .json()
              .signing_url.split('/sign/')[1] as string,
        ),
      );
      const acts = await Promise.all(
        links.map((link, i) =>
          t.server.request('POST', `${API}/signing/${link}`, {
            json: { action: 'sign', consent: true, signature: { kind: 'typed', text: people[i]!.name } },
          }),
        ),
      );
      assert.deepEqual(
        acts.map((a) => a.statusCode),
        [200, 200, 200],
        acts.map((a) => a.body).join('\n'),
      );
      assert.equal(acts.filter((a) => a.json().envelope_status === 'completed').length >= 1, true);
      const final = (
        await t.server.request('GET', `${API}/envelopes/${draft.id}/documents/${draft.documentId}/download`, {
          key: t.account.key,
        })
      ).rawPayload;
      const report = verifyPdf(final);
      assert.equal(report.valid, true);
      // The certification at send comes first (no /Name: the seal signs it), then the three signers, then the
      // completion lock (issue 26).
      assert.equal(report.signatures[0]!.docMdp, 2);
      assert.equal(report.signatures.at(-1)!.field, 'Mohar completion');
      assert.deepEqual(
        report.signatures
          .slice(1, -1)
          .map((s) => s.name)
          .sort(),
        ['Asha', 'Meera', 'Ravi'],
      );
      assert.deepEqual(pdfsigVerdicts(final).valid, [true, true, true, true, true]);
      const completed = await t.server.ctx.db
        .selectFrom('events')
        .select('type')
        .where('envelope_id', '=', draft.id)
        .where('type', '=', 'envelope.completed')
        .execute();
      assert.equal(completed.length, 1);
    });
  });
}
