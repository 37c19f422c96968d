/**
 * Certification at send (issue 11, point 4): the prepared document gets a DocMDP P=2 certification by the
 * installation seal; three sequential signatures (electronic, USB DSC through the real PUT …/signed,
 * electronic) and completion's /DSS + document timestamp keep every signature valid for pdfsig, qpdf
 * and our verifier. MOHAR_CERTIFY_AT_SEND=0 and an upload that is signed already: not certified, and
 * the envelope says why.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { softwareSigner } from '../../../pdf/cms/index.js';
import { signPades } from '../../../pdf/sign/pades.js';
import { verifyPdf } from '../../../pdf/verify/index.js';
import { createTestPki, type TestPki } from '../../support/served-pki.js';
import { DATABASES } from '../../support/databases.js';
import { makeDraft, sendDraft } from '../../support/envelopes.js';
import { makePdf, qpdfCheck } from '../../support/pdf-fixtures.js';
import { API, startTestServer, type TestAccount, type TestServer } from '../../support/server.js';
import { startTsa, type TestTsa } from '../../support/tsa.js';
import { pdfsigVerdicts } from '../../support/validators.js';

const CERTIFICATION_FIELD = 'Mohar certification';

let pki: TestPki;
let tsa: TestTsa;
let anchors: string;
before(async () => {
  pki = await createTestPki();
  tsa = await startTsa({
    certPem: pki.tsa.certPem,
    keyPem: pki.tsa.keyPem,
    chainPem: pki.intermediate.certPem + pki.root.certPem,
  });
  // The DSC signer's certificate chains to the test root: a trust anchor, as a colleague's DSC trust checks require.
  anchors = join(pki.dir, 'dsc-anchors.pem');
  writeFileSync(anchors, pki.root.certPem);
});
after(async () => {
  await tsa?.close();
  await pki?.close();
});

for (const kind of DATABASES) {
  describe(`certification at send on ${kind}`, () => {
    let server: TestServer;
    let account: TestAccount;
    let plain: TestServer;
    let plainAccount: TestAccount;
    before(async () => {
      server = await startTestServer(kind, {
        MOHAR_TSA_URL: tsa.url,
        MOHAR_FETCH_ALLOW_PRIVATE: '1',
        MOHAR_DSC_TRUST_ANCHORS: anchors,
      });
      account = await server.newAccount();
      plain = await startTestServer(kind, { MOHAR_CERTIFY_AT_SEND: '0' });
      plainAccount = await plain.newAccount();
    });
    after(async () => {
      await server?.close();
      await plain?.close();
    });

    const link = async (s: TestServer, key: string, envelopeId: string, recipientId: string) =>
      (
        await s.request('POST', `${API}/envelopes/${envelopeId}/signing-sessions`, {
          key,
          json: { recipient_id: recipientId, mode: 'redirect' },
        })
      )
        .json()
        .signing_url.split('/sign/')[1] as string;

    const current = async (s: TestServer, envelopeId: string, documentId: string) => {
      const row = await s.ctx.db
        .selectFrom('envelope_documents')
        .select('current_sha256')
        .where('envelope_id', '=', envelopeId)
        .where('document_id', '=', documentId)
        .executeTakeFirstOrThrow();
      return s.ctx.blobs.get(row.current_sha256!);
    };

    test('electronic -> USB DSC -> electronic on a certified document: every signature valid, certification included', async () => {
      const draft = await makeDraft(server, account.key, {
        recipients: [
          { name: 'Asha Rao', email: 'asha@example.com' },
          // Named as the certificate that signs (test-pki's rsaSigner, CN "Asha Rao (RSA)", no e-mail).
          { name: 'Asha Rao (RSA)', email: 'token@example.com', signature_method: 'dsc' },
          { name: 'Ravi Kumar', email: 'ravi@example.com' },
        ],
        extraFields: (ids) => [
          { recipient_id: ids[0], field_type: 8, page_number: 2, x: 50, y: 50, width: 200, height: 20, label: 'PAN' },
        ],
      });
      await sendDraft(server, account.key, draft);
      const [asha, holder, ravi] = draft.recipientIds as [string, string, string];

      const envelope = (await server.request('GET', `${API}/envelopes/${draft.id}`, { key: account.key })).json();
      assert.equal(envelope.documents[0].certified, true);
      assert.equal(envelope.documents[0].certification_skipped, null);
      const revisions = await server.ctx.db
        .selectFrom('document_revisions')
        .select(['act', 'sha256'])
        .where('envelope_id', '=', draft.id)
        .orderBy('seq')
        .execute();
      assert.deepEqual(
        revisions.map((r) => r.act),
        ['uploaded', 'prepared', 'certified'],
      );
      const certified = verifyPdf(await current(server, draft.id, draft.documentId));
      assert.equal(certified.signatures.length, 1);
      assert.equal(certified.signatures[0]!.field, CERTIFICATION_FIELD);
      assert.equal(certified.signatures[0]!.docMdp, 2);
      assert.equal(certified.valid, true, JSON.stringify(certified.signatures[0]!.problems));

      const ashaToken = await link(server, account.key, draft.id, asha);
      const pan = (await server.request('GET', `${API}/signing/${ashaToken}`))
        .json()
        .fields.find((f: { label: string }) => f.label === 'PAN');
      const first = await server.request('POST', `${API}/signing/${ashaToken}`, {
        json: {
          action: 'sign',
          consent: true,
          fields: { [pan.field_id]: 'ABCDE1234F' },
          signature: { kind: 'typed', text: 'Asha Rao' },
        },
      });
      assert.equal(first.statusCode, 200, first.body);

      const holderToken = await link(server, account.key, draft.id, holder);
      const base = `${API}/signing/${holderToken}/documents/${draft.documentId}`;
      const prepared = await server.request('GET', `${base}/prepared`);
      assert.equal(prepared.statusCode, 200, prepared.body);
      const field = decodeURIComponent(String(prepared.headers['x-mohar-signature-field']));
      const key = await softwareSigner({
        keyPem: pki.rsaSigner.keyPem,
        certificate: pki.rsaSigner.der,
        chain: [pki.intermediate.der, pki.root.der],
      });
      const byToken = await signPades(prepared.rawPayload, key, {
        level: 'B-B',
        field: { name: field },
        signingTime: new Date(),
      });
      const uploaded = await server.app.inject({
        method: 'PUT',
        url: `${base}/signed`,
        headers: { 'content-type': 'application/pdf' },
        payload: byToken.bytes,
      });
      assert.equal(uploaded.statusCode, 200, uploaded.body);

      const third = await server.request('POST', `${API}/signing/${await link(server, account.key, draft.id, ravi)}`, {
        json: { action: 'sign', consent: true, signature: { kind: 'typed', text: 'Ravi Kumar' } },
      });
      assert.equal(third.statusCode, 200, third.body);
      assert.equal(third.json().envelope_status, 'completed');

      const final = (
        await server.request('GET', `${API}/envelopes/${draft.id}/documents/${draft.documentId}/download`, {
          key: account.key,
        })
      ).rawPayload;
      const all = await server.ctx.db
        .selectFrom('document_revisions')
        .select(['act', 'sha256', 'size'])
        .where('envelope_id', '=', draft.id)
        .orderBy('seq')
        .execute();
      assert.deepEqual(
        all.map((r) => r.act),
        [
          'uploaded',
          'prepared',
          'certified',
          'signed',
          'filled',
          'signed',
          'signed',
          'sealed', // the completion lock (issue 26)
          'validation_data',
          'document_timestamp',
        ].filter((a) => a !== 'filled' || all.some((r) => r.act === 'filled')),
      );
      for (const r of all) {
        assert.ok(
          final.subarray(0, Number(r.size)).equals(await server.ctx.blobs.get(r.sha256)),
          `${r.act} is a byte prefix`,
        );
      }

      const check = qpdfCheck(final);
      assert.ok(check.ok, check.output);
      // pdfsig: the certification, the three signatures and the completion lock are valid (it does not check document
      // timestamps).
      const poppler = pdfsigVerdicts(final);
      assert.equal(poppler.valid.length, 6, poppler.output);
      assert.deepEqual(poppler.valid.slice(0, 5), [true, true, true, true, true], poppler.output);
      const report = verifyPdf(final);
      assert.deepEqual(
        report.signatures.map((s) => s.kind),
        ['signature', 'signature', 'signature', 'signature', 'signature', 'document_timestamp'],
      );
      assert.equal(report.signatures[0]!.field, CERTIFICATION_FIELD);
      assert.equal(report.signatures[0]!.docMdp, 2);
      assert.equal(report.valid, true, JSON.stringify(report.signatures.map((s) => [s.field, s.problems])));
      assert.ok(report.signatures.every((s) => s.changesAfter !== 'other' && s.problems.length === 0));
    });

    test('MOHAR_CERTIFY_AT_SEND=0: not certified, and the envelope says so', async () => {
      const draft = await makeDraft(plain, plainAccount.key, {
        recipients: [{ name: 'Asha Rao', email: 'asha@example.com' }],
      });
      await sendDraft(plain, plainAccount.key, draft);
      const envelope = (await plain.request('GET', `${API}/envelopes/${draft.id}`, { key: plainAccount.key })).json();
      assert.equal(envelope.documents[0].certified, false);
      assert.match(envelope.documents[0].certification_skipped, /MOHAR_CERTIFY_AT_SEND/);
      const revisions = await plain.ctx.db
        .selectFrom('document_revisions')
        .select('act')
        .where('envelope_id', '=', draft.id)
        .orderBy('seq')
        .execute();
      assert.deepEqual(
        revisions.map((r) => r.act),
        ['uploaded', 'prepared'],
      );
      assert.equal(verifyPdf(await current(plain, draft.id, draft.documentId)).signatures.length, 0);
    });

    test('an upload that already carries a signature is not certified; the reason is on the document and in envelope.sent', async () => {
      const someone = await softwareSigner({
        keyPem: pki.ecSigner.keyPem,
        certificate: pki.ecSigner.der,
        chain: [pki.intermediate.der, pki.root.der],
      });
      const signedUpload = (
        await signPades(makePdf({ pages: 2 }), someone, {
          level: 'B-B',
          field: { invisible: true },
          signingTime: new Date(),
        })
      ).bytes;
      const draft = await makeDraft(server, account.key, {
        recipients: [{ name: 'Asha Rao', email: 'asha@example.com' }],
        pdf: signedUpload,
      });
      await sendDraft(server, account.key, draft);
      const envelope = (await server.request('GET', `${API}/envelopes/${draft.id}`, { key: account.key })).json();
      assert.equal(envelope.documents[0].certified, false);
      assert.equal(envelope.documents[0].certification_skipped, 'the uploaded PDF already carries a signature');
      const sent = await server.ctx.db
        .selectFrom('audit_events')
        .select('details')
        .where('envelope_id', '=', draft.id)
        .where('action', '=', 'envelope.sent')
        .executeTakeFirstOrThrow();
      const details = JSON.parse(String(sent.details)) as {
        documents: { certified: boolean; certification_skipped?: string }[];
      };
      assert.deepEqual(
        details.documents.map((d) => [d.certified, d.certification_skipped]),
        [[false, 'the uploaded PDF already carries a signature']],
      );
      const report = verifyPdf(await current(server, draft.id, draft.documentId));
      assert.deepEqual(
        report.signatures.map((s) => s.docMdp),
        [null],
        "only the upload's own signature, no certification",
      );
    });
  });
}
