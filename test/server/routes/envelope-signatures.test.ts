/**
 * The envelope detail page's server side: GET …/documents/{document_id}/signatures on a completed envelope
 * (certification at send, an electronic signer, a USB DSC signer through the real PUT …/signed), and the
 * audit trail's chain check in its JSON.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { softwareSigner } from '../../../pdf/cms/index.js';
import { signPades } from '../../../pdf/sign/pades.js';
import { createTestPki, type TestPki } from '../../support/served-pki.js';
import { tamper, type AuditTestDb } from '../../support/audit-db.js';
import { DATABASES } from '../../support/databases.js';
import { makeDraft, sendDraft, type Draft } from '../../support/envelopes.js';
import { API, startTestServer, type TestAccount, type TestServer } from '../../support/server.js';
import { startTsa, type TestTsa } from '../../support/tsa.js';

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
  anchors = join(pki.dir, 'dsc-anchors.pem');
  writeFileSync(anchors, pki.root.certPem);
});
after(async () => {
  await tsa?.close();
  await pki?.close();
});

interface Signature {
  field: string;
  kind: string;
  signer_name: string | null;
  name: string | null;
  certificate: { subject: string; serial: string } | null;
  timestamp: { valid: boolean } | null;
  pades_level: string | null;
  certification: { docmdp: number } | null;
  field_lock: { action: string; fields: string[]; changed: string[] } | null;
  integrity_ok: boolean;
  changes_after_allowed: boolean;
  valid: boolean;
  problems: string[];
  recipient_id: string | null;
  trust: { status: string; reason: string | null } | null;
}

for (const kind of DATABASES) {
  describe(`envelope detail: signatures and audit chain on ${kind}`, () => {
    let server: TestServer;
    let account: TestAccount;
    let draft: Draft;
    before(async () => {
      server = await startTestServer(kind, {
        MOHAR_TSA_URL: tsa.url,
        MOHAR_FETCH_ALLOW_PRIVATE: '1',
        MOHAR_DSC_TRUST_ANCHORS: anchors,
      });
      account = await server.newAccount();
      draft = await makeDraft(server, account.key, {
        recipients: [
          { name: 'Asha Rao', email: 'asha@example.com' },
          // Named as the certificate that signs (test-pki's rsaSigner, CN "Asha Rao (RSA)", no e-mail).
          { name: 'Asha Rao (RSA)', email: 'token@example.com', signature_method: 'dsc' },
        ],
      });
    });
    after(() => server?.close());

    const link = async (recipientId: string) =>
      (
        await server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
          key: account.key,
          json: { recipient_id: recipientId, mode: 'redirect' },
        })
      )
        .json()
        .signing_url.split('/sign/')[1] as string;
    const signatures = (key = account.key, documentId = draft.documentId) =>
      server.request('GET', `${API}/envelopes/${draft.id}/documents/${documentId}/signatures`, { key });

    test('a draft: the uploaded PDF has no signatures', async () => {
      const response = await signatures();
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json().signatures, []);
      assert.equal(response.json().valid, false);
      assert.equal(
        response.json().sha256,
        (await server.request('GET', `${API}/documents/${draft.documentId}`, { key: account.key })).json().sha256,
      );
    });

    test('a completed envelope: certification, the electronic and the USB DSC signature, each with what the server knows', async () => {
      await sendDraft(server, account.key, draft);
      const [asha, holder] = draft.recipientIds as [string, string];
      const first = await server.request('POST', `${API}/signing/${await link(asha)}`, {
        json: { action: 'sign', consent: true, signature: { kind: 'typed', text: 'Asha Rao' } },
      });
      assert.equal(first.statusCode, 200, first.body);
      const base = `${API}/signing/${await link(holder)}/documents/${draft.documentId}`;
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
      assert.equal(uploaded.json().envelope_status, 'completed');

      const response = await signatures();
      assert.equal(response.statusCode, 200, response.body);
      const answer = response.json() as { sha256: string; valid: boolean; revisions: number; signatures: Signature[] };
      const downloaded = (
        await server.request('GET', `${API}/envelopes/${draft.id}/documents/${draft.documentId}/download`, {
          key: account.key,
        })
      ).rawPayload;
      const { createHash } = await import('node:crypto');
      assert.equal(
        answer.sha256,
        createHash('sha256').update(downloaded).digest('hex'),
        'the PDF verified is the one downloaded',
      );
      assert.equal(answer.valid, true, JSON.stringify(answer.signatures.map((s) => s.problems)));
      const [certification, electronic, dsc, completion, ...rest] = answer.signatures as [
        Signature,
        Signature,
        Signature,
        Signature,
        ...Signature[],
      ];
      assert.deepEqual(
        rest.map((s) => s.kind),
        ['document_timestamp'],
        'completion archives with a document timestamp',
      );
      // Issue 26: completion first seals (the seal's own signature); every field is signed already, so it locks none.
      assert.equal(completion.field, 'Mohar completion');
      assert.equal(completion.field_lock, null);
      assert.deepEqual(completion.trust, { status: 'installation_seal', reason: null });
      assert.equal(completion.valid, true, completion.problems.join('; '));
      assert.equal(certification.field_lock, null, 'the upload has no fields of its own to lock');

      assert.equal(certification.certification?.docmdp, 2);
      assert.deepEqual(certification.trust, { status: 'installation_seal', reason: null });
      assert.equal(certification.recipient_id, null);

      assert.equal(electronic.recipient_id, asha);
      assert.deepEqual(
        electronic.trust,
        { status: 'installation_seal', reason: null },
        'an electronic act is signed by the seal',
      );
      assert.equal(electronic.certification, null);

      assert.equal(dsc.recipient_id, holder);
      assert.equal(dsc.field, field);
      assert.equal(dsc.signer_name, /CN=([^,]+)/.exec(dsc.certificate!.subject)![1]);
      assert.notEqual(dsc.certificate!.serial, certification.certificate!.serial);
      const act = await server.ctx.db
        .selectFrom('recipients')
        .select('act_details')
        .where('id', '=', holder)
        .executeTakeFirstOrThrow();
      const judged = JSON.parse(act.act_details!) as { trust: string; trust_reason: string | null };
      assert.deepEqual(
        dsc.trust,
        { status: judged.trust, reason: judged.trust_reason },
        'the trust judged when the upload was accepted',
      );
      assert.equal(dsc.trust!.status, 'trusted');
      assert.equal(
        dsc.pades_level,
        'B-B',
        'the token signed without a signature timestamp (only B-T and up are raised by the /DSS)',
      );
      assert.equal(dsc.timestamp, null);
      assert.ok(electronic.timestamp?.valid, 'the seal signs B-T with the configured TSA');

      for (const s of [certification, electronic, dsc]) {
        assert.equal(s.kind, 'signature');
        assert.equal(s.integrity_ok, true);
        assert.equal(s.changes_after_allowed, true, `${s.field}: ${s.problems.join('; ')}`);
        assert.equal(s.valid, true);
      }
    });

    test('another account, or a document not in the envelope, is 404', async () => {
      const other = await server.newAccount();
      const foreign = await signatures(other.key);
      assert.equal(foreign.statusCode, 404);
      assert.equal(foreign.json().code, 'envelope_not_found');
      const stranger = await signatures(account.key, '0193f0e2-6c1a-7b3e-9d2f-4a5b6c7d8e9f');
      assert.equal(stranger.statusCode, 404);
      assert.equal(stranger.json().code, 'document_not_found');
    });

    test('the audit trail JSON carries the chain check: intact, then where and why it breaks', async () => {
      const trail = async () =>
        (await server.request('GET', `${API}/envelopes/${draft.id}/audit-trail`, { key: account.key })).json();
      const intact = await trail();
      assert.deepEqual(
        { ...intact.chain, head_hash: typeof intact.chain.head_hash },
        { ok: true, count: intact.events.length, head_hash: 'string', first_bad_seq: null, problem: null },
      );
      assert.equal(intact.chain.head_hash, intact.events.at(-1).hash);
      await tamper({ kind, db: server.ctx.db } as unknown as AuditTestDb, (db) =>
        db
          .updateTable('audit_events')
          .set({ details: '{"edited":true}' })
          .where('envelope_id', '=', draft.id)
          .where('seq', '=', 2)
          .execute()
          .then(() => undefined),
      );
      const broken = await trail();
      assert.equal(broken.chain.ok, false);
      assert.equal(broken.chain.first_bad_seq, 2);
      assert.equal(broken.chain.head_hash, null);
      assert.match(broken.chain.problem, /seq 2|row 2/);
    });
  });
}
