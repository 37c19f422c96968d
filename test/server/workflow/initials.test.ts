/**
 * Initials (field type 2, issue 16 point 3): an electronic signer draws or types their initials once, like a
 * signature; the act carries them as `initials: {kind, image_png, text?}` and every Initials field of theirs
 * shows that picture (an image appearance, in the act's one sealed revision). An act with Initials fields but
 * no initials is refused, and so are initials sent by someone without Initials fields, a value for an
 * Initials field, and an image that is not a PNG.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { verifyPdf } from '../../../pdf/verify/index.js';
import { pngFile } from '../../../pdf/write/image-fit.js';
import { makePng } from '../../support/png.js';
import { DATABASES } from '../../support/databases.js';
import { makeDraft, sendDraft } from '../../support/envelopes.js';
import { appearanceImages } from '../../support/form-reading.js';
import { qpdfCheck } from '../../support/pdf-fixtures.js';
import { API, useTestServer } from '../../support/server.js';
import { pdfsigVerdicts } from '../../support/validators.js';

// Drawn initials: two dark strokes on a transparent background, 90 x 40 pixels.
const INITIALS = makePng(90, 40, (x, y) =>
  Math.abs(y - 20 - Math.round(6 * Math.sin(x / 5))) < 2 || Math.abs(x - 45) < 2 ? [20, 20, 90, 255] : [0, 0, 0, 0],
);
const SIGNATURE = makePng(60, 20, (x, y) => (Math.abs(y - 10) < 2 ? [0, 0, 0, 255] : [0, 0, 0, 0]));

const initialsField = (recipientId: string, page: number, y: number) => ({
  recipient_id: recipientId,
  field_type: 2,
  page_number: page,
  x: 300,
  y,
  width: 60,
  height: 26,
});

for (const kind of DATABASES) {
  describe(`initials on ${kind}`, () => {
    const t = useTestServer(kind);
    const link = async (envelopeId: string, recipientId: string) => {
      const created = await t.server.request('POST', `${API}/envelopes/${envelopeId}/signing-sessions`, {
        key: t.account.key,
        json: { recipient_id: recipientId, mode: 'redirect' },
      });
      assert.equal(created.statusCode, 201, created.body);
      return created.json().signing_url.split('/sign/')[1] as string;
    };

    test('drawn initials: required when the signer has Initials fields, one picture on every one of them, sealed', async () => {
      const draft = await makeDraft(t.server, t.account.key, {
        recipients: [
          { name: 'Asha Rao', email: 'asha@example.com' },
          { name: 'Ravi Kumar', email: 'ravi@example.com' },
        ],
        routing_order: 'parallel',
        extraFields: (ids) => [initialsField(ids[0]!, 1, 300), initialsField(ids[0]!, 2, 700)],
      });
      await sendDraft(t.server, t.account.key, draft);
      const [asha, ravi] = draft.recipientIds as [string, string];
      const token = await link(draft.id, asha);
      const view = (await t.server.request('GET', `${API}/signing/${token}`)).json();
      const initialsIds = view.fields
        .filter((f: { field_type: number }) => f.field_type === 2)
        .map((f: { field_id: string }) => f.field_id) as string[];
      assert.equal(initialsIds.length, 2);
      const signature = { kind: 'drawn', image_png: SIGNATURE.toString('base64') };
      const sign = (extra: Record<string, unknown>) =>
        t.server.request('POST', `${API}/signing/${token}`, {
          json: { action: 'sign', consent: true, signature, ...extra },
        });

      const without = await sign({});
      assert.equal(without.statusCode, 422, without.body);
      assert.equal(without.json().code, 'validation_failed');
      assert.equal(without.json().errors[0].path, '/initials');
      assert.match(without.json().detail, /initials/i);

      const asValue = await sign({
        fields: { [initialsIds[0]!]: 'AR' },
        initials: { kind: 'drawn', image_png: INITIALS.toString('base64') },
      });
      assert.equal(asValue.statusCode, 422, asValue.body);
      assert.equal(asValue.json().code, 'field_read_only');

      const notPng = await sign({
        initials: { kind: 'drawn', image_png: Buffer.from('GIF89a not a png').toString('base64') },
      });
      assert.equal(notPng.statusCode, 422, notPng.body);
      assert.equal(notPng.json().code, 'image_invalid');
      assert.match(notPng.json().detail, /initials/);

      const noImage = await sign({ initials: { kind: 'drawn' } });
      assert.equal(noImage.statusCode, 422, noImage.body);

      // Ravi has no Initials field: initials from him would be lost, so they are refused.
      const raviToken = await link(draft.id, ravi);
      const stray = await t.server.request('POST', `${API}/signing/${raviToken}`, {
        json: {
          action: 'sign',
          consent: true,
          signature: { kind: 'typed', text: 'Ravi Kumar' },
          initials: { kind: 'typed', text: 'RK' },
        },
      });
      assert.equal(stray.statusCode, 422, stray.body);
      assert.equal(stray.json().errors[0].path, '/initials');

      const revisionsBefore = await t.server.ctx.db
        .selectFrom('document_revisions')
        .select('act')
        .where('envelope_id', '=', draft.id)
        .execute();
      assert.ok(!revisionsBefore.some((r) => r.act === 'signed'), 'the refused acts wrote nothing');

      const signed = await sign({ initials: { kind: 'drawn', image_png: INITIALS.toString('base64') } });
      assert.equal(signed.statusCode, 200, signed.body);
      const details = JSON.parse(
        (
          await t.server.ctx.db
            .selectFrom('recipients')
            .select('act_details')
            .where('id', '=', asha)
            .executeTakeFirstOrThrow()
        ).act_details!,
      );
      assert.equal(details.initials, 'drawn');
      const done = await t.server.request('POST', `${API}/signing/${raviToken}`, {
        json: { action: 'sign', consent: true, signature: { kind: 'typed', text: 'Ravi Kumar' } },
      });
      assert.equal(done.statusCode, 200, done.body);
      assert.equal(done.json().envelope_status, 'completed');

      const download = await t.server.request(
        'GET',
        `${API}/envelopes/${draft.id}/documents/${draft.documentId}/download`,
        { key: t.account.key },
      );
      assert.equal(download.statusCode, 200);
      const final = download.rawPayload;
      assert.ok(qpdfCheck(final).ok, qpdfCheck(final).output);
      const verdicts = pdfsigVerdicts(final);
      assert.deepEqual(verdicts.valid, [true, true, true, true], verdicts.output); // with the completion lock
      assert.equal(verifyPdf(final).valid, true);
      for (const id of initialsIds) {
        assert.deepEqual(
          appearanceImages(final, id),
          [[{ width: 90, height: 40 }]],
          `Initials field ${id} shows the drawn picture`,
        );
      }
      const revisions = await t.server.ctx.db
        .selectFrom('document_revisions')
        .select(['act', 'recipient_id'])
        .where('envelope_id', '=', draft.id)
        .orderBy('seq')
        .execute();
      assert.equal(
        revisions.filter((r) => r.act === 'signed' && r.recipient_id === asha).length,
        1,
        'initials, values and signature in one revision',
      );
    });

    test("a signature and initials at the largest size the schema allows fit the act's body limit", async () => {
      // Random pixels do not compress: 600 x 600 RGBA is about 1.44 MB of PNG, 1.92 million base64 characters.
      const noisy = () => {
        const row = 600 * 4 + 1;
        const raw = randomBytes(row * 600);
        for (let y = 0; y < 600; y++) raw[y * row] = 0;
        return pngFile(600, 600, 6, raw).toString('base64');
      };
      const [signaturePng, initialsPng] = [noisy(), noisy()];
      assert.ok(
        signaturePng.length > 1_900_000 && signaturePng.length < 2_000_000,
        `${signaturePng.length} characters`,
      );
      const draft = await makeDraft(t.server, t.account.key, {
        recipients: [{ name: 'Kavya Nair', email: 'kavya@example.com' }],
        extraFields: (ids) => [initialsField(ids[0]!, 1, 300)],
      });
      await sendDraft(t.server, t.account.key, draft);
      const token = await link(draft.id, draft.recipientIds[0]!);
      const signed = await t.server.request('POST', `${API}/signing/${token}`, {
        json: {
          action: 'sign',
          consent: true,
          signature: { kind: 'drawn', image_png: signaturePng },
          initials: { kind: 'drawn', image_png: initialsPng },
        },
      });
      assert.equal(signed.statusCode, 200, signed.body.slice(0, 500));
    });

    test('typed initials without a picture show the typed text', async () => {
      const draft = await makeDraft(t.server, t.account.key, {
        recipients: [{ name: 'Meera Iyer', email: 'meera@example.com' }],
        extraFields: (ids) => [initialsField(ids[0]!, 1, 300)],
      });
      await sendDraft(t.server, t.account.key, draft);
      const token = await link(draft.id, draft.recipientIds[0]!);
      const blank = await t.server.request('POST', `${API}/signing/${token}`, {
        json: {
          action: 'sign',
          consent: true,
          signature: { kind: 'typed', text: 'Meera Iyer' },
          initials: { kind: 'typed', text: '  ' },
        },
      });
      assert.equal(blank.statusCode, 422, blank.body);
      const signed = await t.server.request('POST', `${API}/signing/${token}`, {
        json: {
          action: 'sign',
          consent: true,
          signature: { kind: 'typed', text: 'Meera Iyer' },
          initials: { kind: 'typed', text: 'M.I.' },
        },
      });
      assert.equal(signed.statusCode, 200, signed.body);
      const field = await t.server.ctx.db
        .selectFrom('fields')
        .select('value')
        .where('envelope_id', '=', draft.id)
        .where('field_type', '=', 2)
        .executeTakeFirstOrThrow();
      assert.equal(field.value, 'M.I.');
    });
  });
}
