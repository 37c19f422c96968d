import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { verifyPdf } from '../../../pdf/verify/index.js';
import { DATABASES } from '../../support/databases.js';
import { makeDraft, sendDraft } from '../../support/envelopes.js';
import { qpdfCheck } from '../../support/pdf-fixtures.js';
import { API, LEGACY, useTestServer } from '../../support/server.js';
import { pdfsigVerdicts } from '../../support/validators.js';
import { makePng } from '../../support/png.js';

// A small drawn stroke: dark pixels on a transparent background.
const PNG = makePng(60, 20, (x, y) =>
  Math.abs(y - 10 - Math.round(5 * Math.sin(x / 6))) < 2 ? [20, 20, 80, 255] : [0, 0, 0, 0],
);

for (const kind of DATABASES) {
  describe(`signing through the signer API on ${kind}`, () => {
    const t = useTestServer(kind);
    const token = (url: string) => url.split('/sign/')[1]!;
    const session = async (envelopeId: string, recipientId: string, extra: Record<string, unknown> = {}) =>
      t.server.request('POST', `${API}/envelopes/${envelopeId}/signing-sessions`, {
        key: t.account.key,
        json: { recipient_id: recipientId, mode: 'redirect', ...extra },
      });

    test('electronic signer, then approver, then cc: completed, every revision valid and a prefix of the next', async () => {
      const draft = await makeDraft(t.server, t.account.key, {
        recipients: [
          { name: 'Asha Rao', email: 'asha@example.com' },
          { name: 'Ravi', email: 'ravi@example.com', role: 'approver' },
          { name: 'Kiran', email: 'kiran@example.com', role: 'cc' },
        ],
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
          { recipient_id: ids[0], field_type: 4, page_number: 2, x: 50, y: 100, width: 200, height: 20 },
          { recipient_id: ids[0], field_type: 3, page_number: 2, x: 50, y: 150, width: 200, height: 20 },
        ],
      });
      await sendDraft(t.server, t.account.key, draft);
      const [signerId, approverId, ccId] = draft.recipientIds as [string, string, string];

      const notYet = await session(draft.id, approverId);
      assert.equal(notYet.statusCode, 409);
      assert.equal(notYet.json().code, 'recipient_not_active');
      assert.equal((await session(draft.id, ccId)).statusCode, 409);

      const created = await session(draft.id, signerId);
      assert.equal(created.statusCode, 201, created.body);
      assert.match(created.json().signing_url, /\/sign\/[A-Za-z0-9_-]{40,}$/);
      const signerToken = token(created.json().signing_url);

      const view = await t.server.request('GET', `${API}/signing/${signerToken}`);
      assert.equal(view.statusCode, 200, view.body);
      assert.equal(view.json().action, 'sign');
      assert.equal(view.json().recipient.status, 'viewed');
      assert.equal(view.json().fields.length, 4);
      const address = view.json().fields.find((f: { label: string }) => f.label === 'Address');

      const noConsent = await t.server.request('POST', `${API}/signing/${signerToken}`, {
        json: { action: 'sign', signature: { kind: 'typed', text: 'Asha' } },
      });
      assert.equal(noConsent.json().code, 'consent_required');
      const missing = await t.server.request('POST', `${API}/signing/${signerToken}`, {
        json: { action: 'sign', consent: true, signature: { kind: 'typed', text: 'Asha' } },
      });
      assert.equal(missing.statusCode, 422);
      assert.equal(missing.json().code, 'invalid_field_values');
      const wrongAction = await t.server.request('POST', `${API}/signing/${signerToken}`, {
        json: { action: 'approve', consent: true },
      });
      assert.equal(wrongAction.json().code, 'action_not_allowed');

      const signed = await t.server.request('POST', `${API}/signing/${signerToken}`, {
        headers: { 'user-agent': 'test-browser/1.0' },
        json: {
          action: 'sign',
          consent: true,
          fields: { [address.field_id]: '12 MG Road, Pune' },
          signature: { kind: 'drawn', image_png: PNG.toString('base64') },
        },
      });
      assert.equal(signed.statusCode, 200, signed.body);
      assert.deepEqual(signed.json(), { recipient_status: 'signed', envelope_status: 'sent', redirect_url: null });
      assert.equal(
        (await t.server.request('GET', `${API}/signing/${signerToken}`)).statusCode,
        410,
        'a used link is gone',
      );

      const notReady = await t.server.request(
        'GET',
        `${API}/envelopes/${draft.id}/documents/${draft.documentId}/download`,
        { key: t.account.key },
      );
      assert.equal(notReady.statusCode, 409);
      assert.equal(notReady.json().code, 'document_not_ready');

      const approverToken = token((await session(draft.id, approverId)).json().signing_url);
      const approverView = (await t.server.request('GET', `${API}/signing/${approverToken}`)).json();
      assert.equal(approverView.action, 'approve');
      assert.ok(
        approverView.other_fields.some((f: { value: string }) => f.value === '12 MG Road, Pune'),
        'the approver sees the filled values',
      );
      const approved = await t.server.request('POST', `${API}/signing/${approverToken}`, {
        json: { action: 'approve', consent: true },
      });
      assert.equal(approved.statusCode, 200, approved.body);
      assert.equal(approved.json().envelope_status, 'completed');

      const status = (
        await t.server.request('GET', `${API}/envelopes/${draft.id}/status`, { key: t.account.key })
      ).json();
      assert.deepEqual(
        status.recipients.map((r: { status: string }) => r.status),
        ['signed', 'approved', 'completed'],
      );

      const download = await t.server.request(
        'GET',
        `${API}/envelopes/${draft.id}/documents/${draft.documentId}/download`,
        { key: t.account.key },
      );
      assert.equal(download.statusCode, 200);
      const final = download.rawPayload;
      assert.ok(final.subarray(0, draft.pdf.length).equals(draft.pdf), 'the upload is a prefix of the final document');
      const revisions = await t.server.ctx.db
        .selectFrom('document_revisions')
        .selectAll()
        .where('envelope_id', '=', draft.id)
        .orderBy('seq')
        .execute();
      assert.deepEqual(
        revisions.map((r) => r.act),
        ['uploaded', 'prepared', 'certified', 'signed', 'sealed'], // 'sealed': the completion lock (issue 26)
      );
      for (const r of revisions) {
        assert.ok(
          final.subarray(0, Number(r.size)).equals(await t.server.ctx.blobs.get(r.sha256)),
          `revision ${r.seq} is a prefix`,
        );
      }
      assert.equal(download.headers.etag, `"${revisions.at(-1)!.sha256}"`);
      assert.ok(qpdfCheck(final).ok);
      assert.deepEqual(
        pdfsigVerdicts(final).valid,
        [true, true, true],
        'the certification at send, the signature, the completion lock',
      );
      const report = verifyPdf(final);
      assert.equal(report.valid, true);
      assert.equal(report.signatures[0]!.docMdp, 2);
      assert.equal(report.signatures[1]!.name, 'Asha Rao');
      assert.equal(report.signatures[1]!.revision, 4, 'values and signature in one revision over the certified one');

      const events = await t.server.ctx.db
        .selectFrom('events')
        .select(['type', 'sequence', 'payload'])
        .where('envelope_id', '=', draft.id)
        .orderBy('sequence')
        .execute();
      assert.deepEqual(
        events.map((e) => e.type),
        [
          'envelope.created',
          'envelope.sent',
          'recipient.viewed',
          'recipient.signed',
          'recipient.viewed',
          'recipient.approved',
          'envelope.completed',
        ],
      );
      assert.deepEqual(
        events.map((e) => e.sequence),
        [1, 2, 3, 4, 5, 6, 7],
      );
      const completed = JSON.parse(events.at(-1)!.payload);
      assert.equal(completed.data.documents[0].sha256, revisions.at(-1)!.sha256);
      const signerRow = await t.server.ctx.db
        .selectFrom('recipients')
        .select('act_details')
        .where('id', '=', signerId)
        .executeTakeFirstOrThrow();
      assert.equal(JSON.parse(signerRow.act_details!).user_agent, 'test-browser/1.0');
    });

    test('a decline ends the envelope; nobody can act afterwards (410)', async () => {
      const draft = await makeDraft(t.server, t.account.key, {
        recipients: [
          { name: 'A', email: 'a@example.com' },
          { name: 'B', email: 'b@example.com' },
        ],
        routing_order: 'parallel',
      });
      await sendDraft(t.server, t.account.key, draft);
      const [a, b] = draft.recipientIds as [string, string];
      const tokenB = token((await session(draft.id, b)).json().signing_url);
      const tokenA = token((await session(draft.id, a)).json().signing_url);
      assert.equal(
        (await t.server.request('POST', `${API}/signing/${tokenA}`, { json: { action: 'decline' } })).json().code,
        'validation_failed',
      );
      const declined = await t.server.request('POST', `${API}/signing/${tokenA}`, {
        json: { action: 'decline', decline_reason: 'wrong amount' },
      });
      assert.equal(declined.statusCode, 200);
      assert.equal(declined.json().envelope_status, 'declined');
      assert.equal((await t.server.request('GET', `${API}/signing/${tokenB}`)).statusCode, 410);
      assert.equal((await session(draft.id, b)).statusCode, 409);
      const status = (
        await t.server.request('GET', `${API}/envelopes/${draft.id}/status`, { key: t.account.key })
      ).json();
      assert.equal(status.status, 'declined');
    });

    test('links expire after 15 minutes; embedded mode needs an allowed origin', async () => {
      const draft = await makeDraft(t.server, t.account.key, { recipients: [{ name: 'A', email: 'a@example.com' }] });
      await sendDraft(t.server, t.account.key, draft);
      const [a] = draft.recipientIds as [string];
      const link = token((await session(draft.id, a)).json().signing_url);
      t.server.clock.advance(15 * 60 + 1);
      const expired = await t.server.request('GET', `${API}/signing/${link}`);
      assert.equal(expired.statusCode, 410);
      assert.equal(expired.json().code, 'signing_session_expired');

      const embedded = await t.server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
        key: t.account.key,
        json: { recipient_id: a, origin: 'https://app.example.com' },
      });
      assert.equal(embedded.statusCode, 403);
      assert.equal(embedded.json().code, 'origin_not_allowed');
      // the clock moved past the first token's life
      const admin = await t.server.login(t.account.email, t.account.password);
      const saved = await t.server.request('PUT', `${LEGACY}/account/settings/`, {
        token: admin,
        json: { allowed_origins: ['https://app.example.com/path'] },
      });
      assert.deepEqual(saved.json().allowed_origins, ['https://app.example.com']);
      assert.equal(
        (
          await t.server.request('PUT', `${LEGACY}/account/settings/`, {
            token: admin,
            json: { allowed_origins: ['not an origin'] },
          })
        ).statusCode,
        422,
      );
      const allowed = await t.server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
        key: t.account.key,
        json: { recipient_id: a, origin: 'https://app.example.com' },
      });
      assert.equal(allowed.statusCode, 201, allowed.body);
      assert.equal(allowed.json().mode, 'embedded');
      assert.equal(
        (
          await t.server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
            key: t.account.key,
            json: { recipient_id: a },
          })
        ).statusCode,
        422,
        'embedded mode needs an origin',
      );
    });
  });
}
