/**
 * An act over two documents whose second document moves under it (a parallel signer commits first) is rolled
 * back whole and rebuilt: the first document's revision must not be committed without the act (it used to be:
 * the commit returned "stale" and kept the first document's move, so the retry signed over its own field).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { verifyPdf } from '../../../pdf/verify/index.js';
import { DATABASES } from '../../support/databases.js';
import { makePdf } from '../../support/pdf-fixtures.js';
import { API, useTestServer } from '../../support/server.js';
import { pdfsigVerdicts } from '../../support/validators.js';

for (const kind of DATABASES) {
  describe(`an act whose second document moves under it on ${kind}`, () => {
    const t = useTestServer(kind);

    test('rolled back whole and rebuilt: one revision per document and act, every signature valid', async () => {
      const key = t.account.key;
      const created = await t.server.request('POST', `${API}/envelopes`, {
        key,
        json: {
          title: 'Two documents',
          routing_order: 'parallel',
          recipients: [
            { name: 'Asha Rao', email: 'asha@example.com' },
            { name: 'Ravi Kumar', email: 'ravi@example.com' },
          ],
        },
      });
      assert.equal(created.statusCode, 201, created.body);
      const envelopeId = created.json().id as string;
      const [asha, ravi] = created.json().recipients.map((r: { recipient_id: string }) => r.recipient_id) as [
        string,
        string,
      ];
      const attach = async () =>
        (
          await t.server.request('POST', `${API}/envelopes/${envelopeId}/documents`, {
            key,
            file: { bytes: makePdf({ pages: 1 }) },
          })
        ).json().document_id as string;
      const [first, second] = [await attach(), await attach()];
      const put = (documentId: string, fields: unknown[]) =>
        t.server.request('PUT', `${API}/envelopes/${envelopeId}/documents/${documentId}/fields`, {
          key,
          json: { fields },
        });
      assert.equal(
        (
          await put(first, [
            { recipient_id: asha, field_type: 1, page_number: 1, x: 40, y: 40, width: 180, height: 50 },
          ])
        ).statusCode,
        200,
      );
      assert.equal(
        (
          await put(second, [
            {
              recipient_id: asha,
              field_type: 8,
              page_number: 1,
              x: 40,
              y: 200,
              width: 180,
              height: 20,
              label: 'Note',
              required: false,
            },
            { recipient_id: ravi, field_type: 1, page_number: 1, x: 40, y: 300, width: 180, height: 50 },
          ])
        ).statusCode,
        200,
      );
      assert.equal((await t.server.request('POST', `${API}/envelopes/${envelopeId}/send`, { key })).statusCode, 200);
      const link = async (recipientId: string) =>
        (
          await t.server.request('POST', `${API}/envelopes/${envelopeId}/signing-sessions`, {
            key,
            json: { recipient_id: recipientId, mode: 'redirect' },
          })
        )
          .json()
          .signing_url.split('/sign/')[1] as string;
      const [ashaLink, raviLink] = [await link(asha), await link(ravi)];
      const noteId = (
        await t.server.ctx.db
          .selectFrom('fields')
          .select('id')
          .where('envelope_id', '=', envelopeId)
          .where('label', '=', 'Note')
          .executeTakeFirstOrThrow()
      ).id;

      // Asha's act builds its revision of the first document, then waits before building the second one,
      // whose bytes it read before Ravi signs that document and commits.
      const pdf = t.server.ctx.pdf as { run: typeof t.server.ctx.pdf.run };
      const original = pdf.run;
      let builds = 0;
      let release!: () => void;
      let atGate!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const reached = new Promise<void>((resolve) => (atGate = resolve));
      pdf.run = (async (task: string, input: unknown) => {
        if (task === 'prepareSignature' && ++builds === 2) {
          atGate();
          await gate;
        }
        return (original as (task: string, input: unknown) => Promise<unknown>)(task, input);
      }) as typeof pdf.run;
      try {
        const ashaAct = t.server.request('POST', `${API}/signing/${ashaLink}`, {
          json: {
            action: 'sign',
            consent: true,
            fields: { [noteId]: 'checked twice' },
            signature: { kind: 'typed', text: 'Asha Rao' },
          },
        });
        await reached;
        const raviAct = await t.server.request('POST', `${API}/signing/${raviLink}`, {
          json: { action: 'sign', consent: true, signature: { kind: 'typed', text: 'Ravi Kumar' } },
        });
        assert.equal(raviAct.statusCode, 200, raviAct.body);
        release();
        const ashaDone = await ashaAct;
        assert.equal(ashaDone.statusCode, 200, ashaDone.body);
        assert.equal(ashaDone.json().envelope_status, 'completed');
      } finally {
        pdf.run = original;
        release();
      }

      const revisions = await t.server.ctx.db
        .selectFrom('document_revisions')
        .select(['document_id', 'act', 'recipient_id'])
        .where('envelope_id', '=', envelopeId)
        .where('act', '=', 'signed')
        .execute();
      const count = (documentId: string, recipientId: string) =>
        revisions.filter((r) => r.document_id === documentId && r.recipient_id === recipientId).length;
      assert.deepEqual(
        [count(first, asha), count(second, asha), count(second, ravi)],
        [1, 1, 1],
        JSON.stringify(revisions),
      );
      for (const documentId of [first, second]) {
        const bytes = (
          await t.server.request('GET', `${API}/envelopes/${envelopeId}/documents/${documentId}/download`, { key })
        ).rawPayload;
        assert.equal(verifyPdf(bytes).valid, true);
        assert.ok(pdfsigVerdicts(bytes).valid.every(Boolean));
      }
    });
  });
}
