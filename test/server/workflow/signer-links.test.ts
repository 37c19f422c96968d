/**
 * What a signing link answers in every state (the signing page shows a different page for each), the
 * recipient's download of the completed document, and the three ways of giving a signature.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { verifyPdf } from '../../../pdf/verify/index.js';
import { insertSession } from '../../../server/domain/workflow/sessions.js';
import { DATABASES } from '../../support/databases.js';
import { makeDraft, sendDraft } from '../../support/envelopes.js';
import { API, useTestServer } from '../../support/server.js';
import { pdfsigVerdicts } from '../../support/validators.js';
import { makePng } from '../../support/png.js';

const PNG = makePng(80, 24, (x, y) =>
  Math.abs(y - 12 - Math.round(6 * Math.sin(x / 7))) < 2 ? [10, 10, 90, 255] : [0, 0, 0, 0],
);

/** Image XObjects added by the last revision (the signature appearance's picture and its alpha mask, if any). */
function imagesInLastRevision(before: Buffer, after: Buffer): number {
  return (
    after
      .subarray(before.length)
      .toString('latin1')
      .match(/\/Subtype\s*\/Image/g) ?? []
  ).length;
}

for (const kind of DATABASES) {
  describe(`signing links and signatures on ${kind}`, () => {
    const t = useTestServer(kind);
    const token = (url: string) => url.split('/sign/')[1]!;
    const link = async (envelopeId: string, recipientId: string) => {
      const response = await t.server.request('POST', `${API}/envelopes/${envelopeId}/signing-sessions`, {
        key: t.account.key,
        json: { recipient_id: recipientId, mode: 'redirect' },
      });
      assert.equal(response.statusCode, 201, response.body);
      return token(response.json().signing_url);
    };
    const view = (tok: string) => t.server.request('GET', `${API}/signing/${tok}`);
    const act = (tok: string, json: unknown) => t.server.request('POST', `${API}/signing/${tok}`, { json });
    const current = async (envelopeId: string) => {
      const row = await t.server.ctx.db
        .selectFrom('envelope_documents')
        .select('current_sha256')
        .where('envelope_id', '=', envelopeId)
        .executeTakeFirstOrThrow();
      return t.server.ctx.blobs.get(row.current_sha256!);
    };

    test('a used link says so; the last signer downloads the completed document with their link', async () => {
      const draft = await makeDraft(t.server, t.account.key, {
        recipients: [
          { name: 'Asha Rao', email: 'asha@example.com' },
          { name: 'Ravi Kumar', email: 'ravi@example.com' },
        ],
      });
      await sendDraft(t.server, t.account.key, draft);
      const [first, second] = draft.recipientIds as [string, string];
      const firstLink = await link(draft.id, first);

      const early = await t.server.request('GET', `${API}/signing/${firstLink}/documents/${draft.documentId}/download`);
      assert.equal(early.statusCode, 409, 'nothing to download before completion');
      assert.equal(early.json().code, 'document_not_ready');

      const before = await current(draft.id);
      const typed = await act(firstLink, {
        action: 'sign',
        consent: true,
        signature: { kind: 'typed', text: 'Asha Rao', image_png: PNG.toString('base64') },
      });
      assert.equal(typed.statusCode, 200, typed.body);
      const afterFirst = await current(draft.id);
      assert.ok(
        imagesInLastRevision(before, afterFirst) > 0,
        'the typed signature as the page rendered it is the appearance',
      );

      const used = await view(firstLink);
      assert.equal(used.statusCode, 410);
      assert.equal(used.json().code, 'signing_link_used');
      assert.equal(used.json().recipient_status, 'signed');
      assert.equal(
        (await act(firstLink, { action: 'decline', decline_reason: 'changed my mind' })).json().code,
        'signing_link_used',
        'a used link cannot act again',
      );
      assert.equal(
        (await t.server.request('GET', `${API}/signing/${firstLink}/documents/${draft.documentId}/download`))
          .statusCode,
        409,
        'still in progress',
      );

      const secondLink = await link(draft.id, second);
      const noImage = await act(secondLink, { action: 'sign', consent: true, signature: { kind: 'uploaded' } });
      assert.equal(noImage.statusCode, 422);
      assert.equal(noImage.json().code, 'image_invalid');
      const uploaded = await act(secondLink, {
        action: 'sign',
        consent: true,
        signature: { kind: 'uploaded', image_png: PNG.toString('base64') },
      });
      assert.equal(uploaded.statusCode, 200, uploaded.body);
      assert.equal(uploaded.json().envelope_status, 'completed');

      const closed = await view(secondLink);
      assert.equal(closed.statusCode, 410);
      assert.equal(closed.json().code, 'envelope_closed');
      assert.equal(closed.json().envelope_status, 'completed');
      for (const tok of [firstLink, secondLink]) {
        const download = await t.server.request('GET', `${API}/signing/${tok}/documents/${draft.documentId}/download`);
        assert.equal(download.statusCode, 200, download.body);
        assert.match(String(download.headers['content-disposition']), /^attachment; filename=/);
        const official = await t.server.request(
          'GET',
          `${API}/envelopes/${draft.id}/documents/${draft.documentId}/download`,
          { key: t.account.key },
        );
        assert.ok(download.rawPayload.equals(official.rawPayload), 'the same bytes as the API download');
        assert.equal(download.headers.etag, official.headers.etag);
      }
      const final = (
        await t.server.request('GET', `${API}/signing/${secondLink}/documents/${draft.documentId}/download`)
      ).rawPayload;
      assert.deepEqual(
        pdfsigVerdicts(final).valid,
        [true, true, true, true],
        'the certification at send, the two signatures and the completion lock',
      );
      assert.equal(verifyPdf(final).valid, true);
      const details = await t.server.ctx.db
        .selectFrom('recipients')
        .select(['id', 'act_details'])
        .where('envelope_id', '=', draft.id)
        .execute();
      const byId = new Map(details.map((r) => [r.id, JSON.parse(r.act_details!) as Record<string, unknown>]));
      assert.equal(byId.get(first)!.signature, 'typed');
      assert.equal(byId.get(first)!.signature_text, 'Asha Rao');
      assert.equal(byId.get(second)!.signature, 'uploaded');
      assert.equal(byId.get(second)!.signature_text, undefined);

      t.server.clock.advance(15 * 60 + 1);
      const late = await t.server.request('GET', `${API}/signing/${secondLink}/documents/${draft.documentId}/download`);
      assert.equal(late.statusCode, 410, 'the link has its own lifetime, also for downloads');
      assert.equal(late.json().code, 'signing_session_expired');
    });

    test('a typed signature without an image shows its text; a drawn one needs its image', async () => {
      const draft = await makeDraft(t.server, t.account.key, {
        recipients: [{ name: 'Meera Iyer', email: 'meera@example.com' }],
      });
      await sendDraft(t.server, t.account.key, draft);
      const tok = await link(draft.id, draft.recipientIds[0]!);
      const drawn = await act(tok, { action: 'sign', consent: true, signature: { kind: 'drawn' } });
      assert.equal(drawn.json().code, 'image_invalid');
      assert.equal(
        (
          await act(tok, {
            action: 'sign',
            consent: true,
            signature: { kind: 'drawn', image_png: Buffer.from('GIF89a....').toString('base64') },
          })
        ).json().code,
        'image_invalid',
      );
      const before = await current(draft.id);
      const typed = await act(tok, { action: 'sign', consent: true, signature: { kind: 'typed', text: 'Meera' } });
      assert.equal(typed.statusCode, 200, typed.body);
      assert.equal(imagesInLastRevision(before, await current(draft.id)), 0);
    });

    test('voided and declined envelopes close every link with their reason; a waiting recipient sees not-your-turn', async () => {
      const voided = await makeDraft(t.server, t.account.key, { recipients: [{ name: 'A', email: 'a@example.com' }] });
      await sendDraft(t.server, t.account.key, voided);
      const voidedLink = await link(voided.id, voided.recipientIds[0]!);
      assert.equal(
        (
          await t.server.request('POST', `${API}/envelopes/${voided.id}/void`, {
            key: t.account.key,
            json: { reason: 'wrong file' },
          })
        ).statusCode,
        200,
      );
      const afterVoid = await view(voidedLink);
      assert.equal(afterVoid.statusCode, 410);
      assert.equal(afterVoid.json().code, 'envelope_closed');
      assert.equal(afterVoid.json().envelope_status, 'voided');
      assert.equal(afterVoid.json().void_reason, 'wrong file', 'the void dialog promises recipients see the reason');
      assert.equal(
        (await t.server.request('GET', `${API}/signing/${voidedLink}/documents/${voided.documentId}`)).statusCode,
        410,
        'no bytes either',
      );

      const sequential = await makeDraft(t.server, t.account.key, {
        recipients: [
          { name: 'B', email: 'b@example.com' },
          { name: 'C', email: 'c@example.com' },
        ],
      });
      await sendDraft(t.server, t.account.key, sequential);
      const [b, c] = sequential.recipientIds as [string, string];
      // A link for a recipient whose turn has not come (as headless integrations hand out every link at once).
      const waitingUrl = await insertSession(t.server.ctx.db, t.server.ctx.config.baseUrl, {
        envelopeId: sequential.id,
        recipientId: c,
        mode: 'redirect',
        origin: null,
        returnUrl: null,
        expiresAt: new Date(t.server.clock.now().getTime() + 600_000),
        now: t.server.clock.now(),
      });
      const waiting = await view(token(waitingUrl));
      assert.equal(waiting.statusCode, 200);
      assert.equal(waiting.json().action, 'wait');
      assert.equal(waiting.json().recipient.status, 'waiting', 'looking does not make it their turn');
      assert.equal(
        (
          await act(token(waitingUrl), { action: 'sign', consent: true, signature: { kind: 'typed', text: 'C' } })
        ).json().code,
        'recipient_not_active',
      );

      const declined = await act(await link(sequential.id, b), { action: 'decline', decline_reason: 'not mine' });
      assert.equal(declined.statusCode, 200, declined.body);
      const afterDecline = await view(token(waitingUrl));
      assert.equal(afterDecline.json().code, 'envelope_closed');
      assert.equal(afterDecline.json().envelope_status, 'declined');
      assert.equal(afterDecline.json().void_reason, undefined, 'a decline reason is not passed to the others');
    });
  });
}
