import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { inspectPdf } from '../../../pdf/index.js';
import { DATABASES } from '../../support/databases.js';
import { makeDraft, sendDraft } from '../../support/envelopes.js';
import { API, useTestServer } from '../../support/server.js';

for (const kind of DATABASES) {
  describe(`sending on ${kind}`, () => {
    const t = useTestServer(kind);
    const people = [
      { name: 'Asha', email: 'asha@example.com' },
      { name: 'Ravi', email: 'ravi@example.com', role: 'approver' },
      { name: 'Kiran', email: 'kiran@example.com', role: 'cc' },
    ];

    test('send prepares the PDF in one revision over the upload and starts sequential routing', async () => {
      const draft = await makeDraft(t.server, t.account.key, {
        recipients: people,
        extraFields: (ids) => [
          {
            recipient_id: ids[0],
            field_type: 8,
            page_number: 2,
            x: 50,
            y: 50,
            width: 200,
            height: 20,
            label: 'Address',
          },
        ],
      });
      const status = await sendDraft(t.server, t.account.key, draft);
      assert.equal(status.status, 'sent');
      assert.deepEqual(
        status.recipients.map((r: { status: string }) => r.status),
        ['active', 'waiting', 'waiting'],
      );

      const revisions = await t.server.ctx.db
        .selectFrom('document_revisions')
        .selectAll()
        .where('envelope_id', '=', draft.id)
        .orderBy('seq')
        .execute();
      assert.deepEqual(
        revisions.map((r) => r.act),
        ['uploaded', 'prepared', 'certified'],
        'the form fields, then the certification (see certify.test.ts)',
      );
      const prepared = await t.server.ctx.blobs.get(revisions[1]!.sha256);
      assert.ok(
        prepared.subarray(0, draft.pdf.length).equals(draft.pdf),
        'the upload is a byte prefix of the prepared PDF',
      );
      const info = inspectPdf(prepared);
      assert.equal(info.revisions, 2);
      assert.equal(info.signatureFields.filter((f) => f.name.startsWith('mohar.')).length, 1);

      const events = await t.server.ctx.db
        .selectFrom('events')
        .selectAll()
        .where('envelope_id', '=', draft.id)
        .orderBy('sequence')
        .execute();
      assert.deepEqual(
        events.map((e) => [e.type, e.sequence]),
        [
          ['envelope.created', 1],
          ['envelope.sent', 2],
        ],
      );
      assert.equal(JSON.parse(events[0]!.payload).data.envelope.status, 'draft');
      assert.equal(JSON.parse(events[1]!.payload).data.envelope.status, 'sent');

      const again = await t.server.request('POST', `${API}/envelopes/${draft.id}/send`, { key: t.account.key });
      assert.equal(again.statusCode, 409);
      assert.equal(again.json().code, 'envelope_not_draft');
    });

    test('parallel routing activates every actor at once; equal sequences form a group', async () => {
      const parallel = await makeDraft(t.server, t.account.key, { recipients: people, routing_order: 'parallel' });
      assert.deepEqual(
        (await sendDraft(t.server, t.account.key, parallel)).recipients.map((r: { status: string }) => r.status),
        ['active', 'active', 'waiting'],
      );
      const grouped = await makeDraft(t.server, t.account.key, {
        recipients: [
          { ...people[0]!, sequence: 1 },
          { ...people[1]!, sequence: 1 },
          { name: 'Last', email: 'last@example.com', sequence: 2 },
        ],
      });
      assert.deepEqual(
        (await sendDraft(t.server, t.account.key, grouped)).recipients.map((r: { status: string }) => r.status),
        ['active', 'active', 'waiting'],
      );
    });

    test('an incomplete draft is refused with every reason', async () => {
      const empty = (
        await t.server.request('POST', `${API}/envelopes`, {
          key: t.account.key,
          json: { title: 'empty', recipients: [{ name: 'C', email: 'c@example.com', role: 'cc' }] },
        })
      ).json();
      const response = await t.server.request('POST', `${API}/envelopes/${empty.id}/send`, { key: t.account.key });
      assert.equal(response.statusCode, 422);
      assert.equal(response.json().code, 'envelope_incomplete');
      assert.deepEqual(
        response
          .json()
          .errors.map((e: { code: string }) => e.code)
          .sort(),
        ['no_actor', 'no_document'],
      );
      const noSignatureField = await makeDraft(t.server, t.account.key, {
        recipients: [{ name: 'Ravi', email: 'ravi@example.com', role: 'approver' }],
      });
      await t.server.request('POST', `${API}/envelopes/${noSignatureField.id}/recipients`, {
        key: t.account.key,
        json: { name: 'Late', email: 'late@example.com' },
      });
      const missing = await t.server.request('POST', `${API}/envelopes/${noSignatureField.id}/send`, {
        key: t.account.key,
      });
      assert.equal(missing.json().errors[0].code, 'signature_field_missing');
      const status = await t.server.request('GET', `${API}/envelopes/${noSignatureField.id}/status`, {
        key: t.account.key,
      });
      assert.equal(status.json().status, 'draft', 'a refused send changes nothing');
    });

    test('an Aadhaar signer needs a configured provider, also at send (settings may change after the draft was made)', async () => {
      const draft = await makeDraft(t.server, t.account.key, { recipients: [{ name: 'A', email: 'a@example.com' }] });
      // Create refuses Aadhaar here (test/server/aadhaar/availability.test.ts): a draft made while eSign was
      // configured.
      await t.server.ctx.db
        .updateTable('recipients')
        .set({ signature_method: 'aadhaar' })
        .where('envelope_id', '=', draft.id)
        .execute();
      const response = await t.server.request('POST', `${API}/envelopes/${draft.id}/send`, { key: t.account.key });
      assert.equal(response.statusCode, 422);
      assert.equal(response.json().code, 'aadhaar_not_configured');
    });

    test('void stops an envelope once; its event is recorded', async () => {
      const draft = await makeDraft(t.server, t.account.key, { recipients: people });
      await sendDraft(t.server, t.account.key, draft);
      const voided = await t.server.request('POST', `${API}/envelopes/${draft.id}/void`, {
        key: t.account.key,
        json: { reason: 'wrong terms' },
      });
      assert.equal(voided.statusCode, 200);
      assert.equal(voided.json().status, 'voided');
      const again = await t.server.request('POST', `${API}/envelopes/${draft.id}/void`, {
        key: t.account.key,
        json: { reason: 'again' },
      });
      assert.equal(again.statusCode, 409);
      assert.equal(again.json().code, 'envelope_finished');
      const events = await t.server.ctx.db
        .selectFrom('events')
        .select(['type', 'sequence'])
        .where('envelope_id', '=', draft.id)
        .orderBy('sequence')
        .execute();
      assert.deepEqual(
        events.map((e) => e.type),
        ['envelope.created', 'envelope.sent', 'envelope.voided'],
      );
    });
  });
}
