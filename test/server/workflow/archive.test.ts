/**
 * With a TSA configured, completion appends /DSS and a document timestamp: the final document reaches
 * PAdES B-LTA, earlier bytes unchanged. A TSA that is down leaves the envelope to the retrying job.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { verifyPdf } from '../../../pdf/verify/index.js';
import { softwareSigner } from '../../../pdf/cms/index.js';
import { signPades } from '../../../pdf/sign/pades.js';
import { createTestPki, type TestPki } from '../../support/served-pki.js';
import { DATABASES } from '../../support/databases.js';
import { makeDraft, sendDraft } from '../../support/envelopes.js';
import { qpdfCheck } from '../../support/pdf-fixtures.js';
import { API, startTestServer, type TestAccount, type TestServer } from '../../support/server.js';
import { startTsa, type TestTsa } from '../../support/tsa.js';
import { pdfsigVerdicts } from '../../support/validators.js';

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
  // The desktop's test certificate chains to the test root: a DSC trust anchor for this server.
  anchors = join(pki.dir, 'dsc-anchors.pem');
  writeFileSync(anchors, pki.root.certPem);
});
after(async () => {
  await tsa?.close();
  await pki?.close();
});

for (const kind of DATABASES) {
  describe(`completion with long-term validation on ${kind}`, () => {
    let server: TestServer;
    let account: TestAccount;
    before(async () => {
      server = await startTestServer(kind, {
        MOHAR_TSA_URL: tsa.url,
        MOHAR_FETCH_ALLOW_PRIVATE: '1',
        MOHAR_DSC_TRUST_ANCHORS: anchors,
      });
      account = await server.newAccount();
    });
    after(() => server?.close());

    const signAll = async () => {
      const draft = await makeDraft(server, account.key, {
        recipients: [{ name: 'Asha Rao', email: 'asha@example.com' }],
      });
      await sendDraft(server, account.key, draft);
      const link = (
        await server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
          key: account.key,
          json: { recipient_id: draft.recipientIds[0], mode: 'redirect' },
        })
      )
        .json()
        .signing_url.split('/sign/')[1];
      const act = await server.request('POST', `${API}/signing/${link}`, {
        json: { action: 'sign', consent: true, signature: { kind: 'typed', text: 'Asha Rao' } },
      });
      assert.equal(act.statusCode, 200, act.body);
      return { draft, act: act.json() };
    };

    test('the final document is B-LTA: signature timestamp, DSS, document timestamp', async () => {
      const { draft, act } = await signAll();
      assert.equal(act.envelope_status, 'completed');
      const final = (
        await server.request('GET', `${API}/envelopes/${draft.id}/documents/${draft.documentId}/download`, {
          key: account.key,
        })
      ).rawPayload;
      const revisions = await server.ctx.db
        .selectFrom('document_revisions')
        .selectAll()
        .where('envelope_id', '=', draft.id)
        .orderBy('seq')
        .execute();
      assert.deepEqual(
        revisions.map((r) => r.act),
        // 'sealed': the completion lock (the seal's approval signature with FieldMDP /All) before the /DSS.
        ['uploaded', 'prepared', 'certified', 'signed', 'sealed', 'validation_data', 'document_timestamp'],
      );
      for (const r of revisions) {
        assert.ok(final.subarray(0, Number(r.size)).equals(await server.ctx.blobs.get(r.sha256)));
      }
      const report = verifyPdf(final);
      assert.equal(report.valid, true, JSON.stringify(report.signatures.map((s) => s.problems)));
      // The certification at send and the completion lock (B-T seal signatures) reach B-LTA as well.
      assert.deepEqual(
        report.signatures.map((s) => [s.kind, s.padesLevel]),
        [
          ['signature', 'B-LTA'],
          ['signature', 'B-LTA'],
          ['signature', 'B-LTA'],
          ['document_timestamp', null],
        ],
      );
      assert.equal(report.signatures[2]!.field, 'Mohar completion');
      assert.equal(report.signatures[0]!.docMdp, 2);
      const envelope = (await server.request('GET', `${API}/envelopes/${draft.id}`, { key: account.key })).json();
      assert.equal(envelope.pades_level, 'B-LTA');
      assert.equal(envelope.status, 'completed');
      assert.ok(envelope.sent_at && envelope.completed_at);
      assert.ok(qpdfCheck(final).ok);
      assert.deepEqual(pdfsigVerdicts(final).valid.slice(0, 3), [true, true, true]);
    });

    test('a TSA down at completion: the act stands, the job completes the envelope once the TSA is back', async () => {
      const draft = await makeDraft(server, account.key, {
        // Named as the certificate that signs (test-pki's rsaSigner, CN "Asha Rao (RSA)", no e-mail).
        recipients: [{ name: 'Asha Rao (RSA)', email: 'token@example.com', signature_method: 'dsc' }],
      });
      await sendDraft(server, account.key, draft);
      const link = (
        await server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
          key: account.key,
          json: { recipient_id: draft.recipientIds[0], mode: 'redirect' },
        })
      )
        .json()
        .signing_url.split('/sign/')[1];
      const base = `${API}/signing/${link}/documents/${draft.documentId}`;
      const prepared = await server.request('GET', `${base}/prepared`);
      // The desktop signs locally (B-B): no server TSA is needed for the act itself.
      const desktop = await softwareSigner({
        keyPem: pki.rsaSigner.keyPem,
        certificate: pki.rsaSigner.der,
        chain: [pki.intermediate.der, pki.root.der],
      });
      const signed = await signPades(prepared.rawPayload, desktop, {
        level: 'B-B',
        field: { name: decodeURIComponent(String(prepared.headers['x-mohar-signature-field'])) },
        signingTime: new Date(),
      });
      await tsa.setFailing('down');
      try {
        const act = await server.app.inject({
          method: 'PUT',
          url: `${base}/signed`,
          headers: { 'content-type': 'application/pdf' },
          payload: signed.bytes,
        });
        assert.equal(act.statusCode, 200, act.body);
        assert.deepEqual(
          [act.json().recipient_status, act.json().envelope_status],
          ['signed', 'sent'],
          'signed, not yet completed',
        );
        await server.runJobs();
        assert.equal(
          (await server.request('GET', `${API}/envelopes/${draft.id}/status`, { key: account.key })).json().status,
          'sent',
          'still waiting for the TSA',
        );
      } finally {
        await tsa.setFailing('none');
      }
      const jobs = await server.ctx.db
        .selectFrom('jobs')
        .selectAll()
        .where('dedupe_key', '=', `complete:${draft.id}`)
        .where('state', '=', 'queued')
        .execute();
      assert.equal(jobs.length, 1);
      assert.match(jobs[0]!.last_error ?? '', /tsa|timestamp/i);
      server.clock.advance(3600); // past the retry backoff
      await server.runJobs();
      assert.equal(
        (await server.request('GET', `${API}/envelopes/${draft.id}/status`, { key: account.key })).json().status,
        'completed',
      );
      const final = (
        await server.request('GET', `${API}/envelopes/${draft.id}/documents/${draft.documentId}/download`, {
          key: account.key,
        })
      ).rawPayload;
      assert.ok(
        final.subarray(0, signed.bytes.length).equals(signed.bytes),
        'the uploaded signature is a prefix of the archived document',
      );
      assert.equal(verifyPdf(final).signatures.at(-1)!.kind, 'document_timestamp');
    });
  });
}
