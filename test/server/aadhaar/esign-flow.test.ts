/**
 * Aadhaar eSign through the signer API against the offline ESP simulator (test/support/esp.ts): start,
 * the ESP's answer posted to the response URL, the act recorded; failures and tampered answers leave the
 * envelope unchanged. SQLite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { verifyPdf } from '../../../pdf/verify/index.js';
import { signEsignResponse, verifyEsignResponse, type EsignResponse } from '../../../server/aadhaar/messages.js';
import { DATABASES } from '../../support/databases.js';
import { makeDraft, sendDraft, type RecipientSpec } from '../../support/envelopes.js';
import { startTestEsp, TEST_AADHAAR, type EspPageResult, type TestEsp } from '../../support/esp.js';
import { qpdfCheck } from '../../support/pdf-fixtures.js';
import { API, startTestServer, type TestAccount, type TestServer } from '../../support/server.js';
import { pdfsigVerdicts } from '../../support/validators.js';
import { legacyCreate, startDocServer, tokenOf, type DocServer } from '../legacy/helpers.js';
import { sign, createPrivateKey } from 'node:crypto';

const SIGNER = { name: 'Test Signer', email: 'signer@example.com', signature_method: 'aadhaar' };

for (const kind of DATABASES) {
  describe(`Aadhaar eSign flow on ${kind}`, () => {
    let esp: TestEsp;
    let server: TestServer;
    let account: TestAccount;
    let docs: DocServer;
    before(async () => {
      esp = await startTestEsp();
      docs = await startDocServer();
      server = await startTestServer(kind, {
        ...esp.env,
        MOHAR_DSC_TRUST_ANCHORS: esp.trustAnchorPath,
        MOHAR_FETCH_ALLOW_PRIVATE: '1',
      });
      account = await server.newAccount();
    });
    after(async () => {
      await server?.close();
      await esp?.close();
      await docs?.close();
    });

    async function sentEnvelope(recipients: RecipientSpec[] = [SIGNER], extraFields?: (ids: string[]) => unknown[]) {
      const draft = await makeDraft(server, account.key, { recipients, ...(extraFields ? { extraFields } : {}) });
      await sendDraft(server, account.key, draft);
      return draft;
    }
    async function tokenFor(envelopeId: string, recipientId: string): Promise<string> {
      const created = await server.request('POST', `${API}/envelopes/${envelopeId}/signing-sessions`, {
        key: account.key,
        json: { recipient_id: recipientId, mode: 'redirect' },
      });
      assert.equal(created.statusCode, 201, created.body);
      return created.json().signing_url.split('/sign/')[1];
    }
    async function start(token: string, fields: Record<string, string> = {}) {
      const started = await server.request('POST', `${API}/signing/${token}/aadhaar`, {
        json: { consent: true, fields },
      });
      assert.equal(started.statusCode, 200, started.body);
      return started.json() as {
        txn: string;
        esp_url: string;
        form: { eSignRequest: string; aspTxnID: string };
        autopost_url: string;
      };
    }
    async function deliver(fields: { eSignResponse: string; espTxnID?: string }) {
      return server.app.inject({
        method: 'POST',
        url: '/sign/aadhaar/response',
        payload: new URLSearchParams(fields as Record<string, string>).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'test-browser/1.0' },
      });
    }
    async function snapshot(envelopeId: string) {
      const docs = await server.ctx.db
        .selectFrom('envelope_documents')
        .select(['document_id', 'current_sha256'])
        .where('envelope_id', '=', envelopeId)
        .execute();
      const recipients = await server.ctx.db
        .selectFrom('recipients')
        .select(['id', 'status'])
        .where('envelope_id', '=', envelopeId)
        .orderBy('position')
        .execute();
      const revisions = await server.ctx.db
        .selectFrom('document_revisions')
        .select('seq')
        .where('envelope_id', '=', envelopeId)
        .execute();
      const events = await server.ctx.db
        .selectFrom('events')
        .select('type')
        .where('envelope_id', '=', envelopeId)
        .execute();
      return JSON.stringify({ docs, recipients, revisions: revisions.length, events: events.map((e) => e.type) });
    }
    function answered(result: EspPageResult): { eSignResponse: string; espTxnID: string } {
      assert.ok(result.fields, `the ESP page posts back: ${result.html.slice(0, 300)}`);
      return result.fields;
    }

    test('start → ESP (consent + OTP) → response URL: signed, audit has the certificate summary, the PDF passes pdfsig, qpdf and our verifier', async () => {
      const draft = await sentEnvelope([SIGNER], (ids) => [
        { recipient_id: ids[0], field_type: 8, page_number: 2, x: 50, y: 50, width: 200, height: 20, label: 'Address' },
      ]);
      const token = await tokenFor(draft.id, draft.recipientIds[0]!);
      const view = (await server.request('GET', `${API}/signing/${token}`)).json();
      const address = view.fields.find((f: { label: string }) => f.label === 'Address');
      const before = await snapshot(draft.id);
      const started = await start(token, { [address.field_id]: '12 MG Road, Pune' });
      assert.equal(started.esp_url, esp.espUrl);
      assert.equal(await snapshot(draft.id), before, 'starting does not change the envelope');
      const page = await server.app.inject({ method: 'GET', url: new URL(started.autopost_url).pathname });
      assert.equal(page.statusCode, 200);
      assert.match(
        String(page.headers['content-security-policy']),
        new RegExp(`form-action ${new URL(esp.espUrl).origin}`),
      );
      assert.match(page.body, /<form id="esign" method="post" action="[^"]+"/);
      assert.match(page.body, /name="eSignRequest"/);
      assert.doesNotMatch(page.body, /<script>/, 'no inline script');

      const response = await deliver(answered(await esp.complete(started.form)));
      assert.equal(response.statusCode, 303, response.body);
      assert.equal(response.headers.location, `/sign/${token}?aadhaar=signed`);

      const status = (await server.request('GET', `${API}/envelopes/${draft.id}/status`, { key: account.key })).json();
      assert.equal(status.status, 'completed');
      const signer = await server.ctx.db
        .selectFrom('recipients')
        .selectAll()
        .where('id', '=', draft.recipientIds[0]!)
        .executeTakeFirstOrThrow();
      assert.equal(signer.status, 'signed');
      const details = JSON.parse(signer.act_details!);
      assert.equal(details.method, 'aadhaar');
      assert.equal(details.certificate.name, 'Test Signer');
      assert.equal(typeof details.certificate.year_of_birth, 'number');
      assert.match(details.certificate.gender, /^[MFT]$/);
      assert.equal(details.esp.txn, started.txn);
      assert.ok(details.esp.res_code);
      assert.equal(details.ip, '127.0.0.1');
      const field = await server.ctx.db
        .selectFrom('fields')
        .select('value')
        .where('id', '=', address.field_id)
        .executeTakeFirstOrThrow();
      assert.equal(field.value, '12 MG Road, Pune');

      const revisions = await server.ctx.db
        .selectFrom('document_revisions')
        .selectAll()
        .where('envelope_id', '=', draft.id)
        .orderBy('seq')
        .execute();
      const signedRevision = revisions.find((r) => r.act === 'signed')!;
      const signed = await server.ctx.blobs.get(signedRevision.sha256);
      const report = verifyPdf(signed);
      const aadhaarSig = report.signatures.find(
        (s) => s.field === report.signatures.find((x) => x.signer?.subject.includes('Test Signer'))?.field,
      )!;
      assert.ok(aadhaarSig, 'a signature by the e-KYC name');
      assert.ok(aadhaarSig.valid, aadhaarSig.problems.join('; '));
      // Issue 26: the Aadhaar signature takes the /Lock Mohar prepared on the signer's field (their Address).
      assert.deepEqual(aadhaarSig.fieldLock, {
        action: 'Include',
        fields: [`mohar.${draft.recipientIds[0]}.${address.field_id as string}`],
      });
      assert.ok(report.signatures.every((s) => s.digestValid && s.signatureValid));
      assert.ok(qpdfCheck(signed).ok);
      assert.ok(pdfsigVerdicts(signed).valid.every(Boolean), pdfsigVerdicts(signed).output);
      const final = await server.request('GET', `${API}/envelopes/${draft.id}/documents/${draft.documentId}/download`, {
        key: account.key,
      });
      if (final.statusCode === 200) {
        assert.ok(qpdfCheck(final.rawPayload).ok);
        assert.ok(pdfsigVerdicts(final.rawPayload).valid.every(Boolean));
      }
    });

    test('each simulated failure: the signer is sent back with the reason; the envelope is unchanged; a retry signs', async () => {
      const draft = await sentEnvelope();
      const token = await tokenFor(draft.id, draft.recipientIds[0]!);
      const before = await snapshot(draft.id);
      const cases: [string, string][] = [
        [TEST_AADHAAR.wrongOtp, 'otp_wrong'],
        [TEST_AADHAAR.otpExpired, 'otp_expired'],
        [TEST_AADHAAR.attemptsExceeded, 'attempts_exceeded'],
        [TEST_AADHAAR.aadhaarLocked, 'aadhaar_locked'],
        [TEST_AADHAAR.serviceDown, 'service_down'],
        [TEST_AADHAAR.nameMismatch, 'name_mismatch'],
      ];
      for (const [aadhaar, reason] of cases) {
        const started = await start(token);
        const response = await deliver(answered(await esp.complete(started.form, { aadhaar })));
        assert.equal(response.statusCode, 303, `${reason}: ${response.body}`);
        const location = new URL(String(response.headers.location), 'http://x');
        assert.equal(location.pathname, `/sign/${token}`);
        assert.equal(location.searchParams.get('aadhaar'), 'failed');
        assert.equal(location.searchParams.get('reason'), reason);
        assert.equal(await snapshot(draft.id), before, `${reason}: the envelope is unchanged`);
        const row = await server.ctx.db
          .selectFrom('esign_transactions')
          .selectAll()
          .where('id', '=', started.txn)
          .executeTakeFirstOrThrow();
        assert.equal(row.state, 'failed');
      }
      const cancelled = await start(token);
      const back = await deliver(answered(await esp.complete(cancelled.form, { cancel: true })));
      assert.equal(new URL(String(back.headers.location), 'http://x').searchParams.get('reason'), 'cancelled');
      assert.equal(await snapshot(draft.id), before);

      const retry = await start(token);
      const ok = await deliver(answered(await esp.complete(retry.form)));
      assert.equal(ok.headers.location, `/sign/${token}?aadhaar=signed`);
    });

    test("tampered answers are refused and change nothing: signature wrapping, changed digest, replayed txn, another recipient's answer", async () => {
      const draft = await sentEnvelope([
        SIGNER,
        { name: 'Test Signer', email: 'second@example.com', signature_method: 'aadhaar' },
      ]);
      // parallel would be simpler, but the second signer's turn comes after the first: use the first only here.
      const token = await tokenFor(draft.id, draft.recipientIds[0]!);
      const before = await snapshot(draft.id);
      const started = await start(token);
      const good = answered(await esp.complete(started.form));

      // 1. Signature wrapping: a forged EsignResp wrapped around the signed one; and a changed attribute.
      const forgedStatus = good.eSignResponse.replace(/status="1"/, 'status="1" resCode="forged"');
      const wrapped = good.eSignResponse
        .replace('<EsignResp', '<EsignResp ver="2.1" status="1" txn="' + started.txn + '"><Evil')
        .replace(/<\/EsignResp>\s*$/, '</Evil></EsignResp>');
      for (const tampered of [
        forgedStatus,
        wrapped,
        good.eSignResponse.replace(/<Signature[\s\S]*<\/Signature>/, ''),
      ]) {
        const r = await deliver({ eSignResponse: tampered });
        assert.equal(r.statusCode, 422, r.body);
        assert.equal(await snapshot(draft.id), before);
      }

      // 2. Changed digest: a response validly signed by the ESP key whose CMS is over another document
      //    (an answer for another envelope, re-addressed to this txn).
      const elsewhere = await sentEnvelope();
      const elsewhereAnswer = verifyEsignResponse(
        answered(await esp.complete((await start(await tokenFor(elsewhere.id, elsewhere.recipientIds[0]!))).form))
          .eSignResponse,
        esp.espCertPem,
      );
      const third = await start(token);
      const espSigner = {
        certificate: new Uint8Array(Buffer.from(esp.espCertPem.replace(/-----[^-]+-----|\s/g, ''), 'base64')),
        keyType: 'RSA' as const,
        sign: async (data: Uint8Array) =>
          new Uint8Array(sign('sha256', data, createPrivateKey(esp.pki.responseSigner.keyPem))),
      };
      const swapped: EsignResponse = { ...elsewhereAnswer, txn: third.txn };
      const changed = await deliver({ eSignResponse: await signEsignResponse(swapped, espSigner) });
      assert.equal(changed.statusCode, 303);
      assert.equal(
        new URL(String(changed.headers.location), 'http://x').searchParams.get('reason'),
        'response_invalid',
      );
      assert.equal(await snapshot(draft.id), before);

      // 3. Replay: the same (valid) answer twice; the first of a superseded txn is refused too.
      const fourth = await start(token);
      const answer = answered(await esp.complete(fourth.form));
      const stale = await deliver(good);
      assert.equal(
        new URL(String(stale.headers.location), 'http://x').searchParams.get('aadhaar'),
        'failed',
        'a superseded txn is not applied',
      );
      assert.equal(await snapshot(draft.id), before);
      const first = await deliver(answer);
      assert.equal(first.headers.location, `/sign/${token}?aadhaar=signed`);
      const afterFirst = await snapshot(draft.id);
      const again = await deliver(answer);
      assert.equal(new URL(String(again.headers.location), 'http://x').searchParams.get('aadhaar'), 'failed');
      assert.equal(await snapshot(draft.id), afterFirst, 'a replay changes nothing');

      // 4. Another recipient's answer: the second signer's ESP answer re-addressed to the first's (now used) txn,
      //    or to a fresh txn of the second signer with the first signer's CMS, is refused.
      const secondToken = await tokenFor(draft.id, draft.recipientIds[1]!);
      const secondStart = await start(secondToken);
      const beforeSecond = await snapshot(draft.id);
      const crossed = await signEsignResponse(
        { ...verifyEsignResponse(answer.eSignResponse, esp.espCertPem), txn: secondStart.txn },
        espSigner,
      );
      const refused = await deliver({ eSignResponse: crossed });
      assert.equal(
        new URL(String(refused.headers.location), 'http://x').searchParams.get('reason'),
        'response_invalid',
      );
      assert.equal(await snapshot(draft.id), beforeSecond);
    });

    test('a lost callback is recovered with EsignStatus', async () => {
      const draft = await sentEnvelope();
      const token = await tokenFor(draft.id, draft.recipientIds[0]!);
      const none = await server.request('POST', `${API}/signing/${token}/aadhaar/status`);
      assert.equal(none.json().state, 'none', none.body);
      const started = await start(token);
      answered(await esp.complete(started.form)); // the ESP's post never reaches us
      const recovered = await server.request('POST', `${API}/signing/${token}/aadhaar/status`);
      assert.equal(recovered.statusCode, 200, recovered.body);
      assert.equal(recovered.json().state, 'signed');
      assert.equal(recovered.json().envelope_status, 'completed');
    });

    test('an answer after 30 minutes is refused (the txn expired); the envelope is unchanged', async () => {
      const draft = await sentEnvelope();
      const token = await tokenFor(draft.id, draft.recipientIds[0]!);
      const started = await start(token);
      const answer = answered(await esp.complete(started.form));
      const before = await snapshot(draft.id);
      server.clock.advance(31 * 60);
      try {
        const late = await deliver(answer);
        const location = new URL(String(late.headers.location), 'http://x');
        assert.equal(location.searchParams.get('reason'), 'expired', late.body);
        assert.equal(await snapshot(draft.id), before);
        const page = await server.app.inject({ method: 'GET', url: new URL(started.autopost_url).pathname });
        assert.equal(page.statusCode, 410, 'its auto-post page is gone too');
      } finally {
        server.clock.advance(-31 * 60);
      }
    });

    test('legacy aadhaar_digital_signature recipients are accepted when eSign is configured and sign the same way', async () => {
      const created = await legacyCreate(server, account.key, {
        docUrl: `${docs.base}/doc.pdf`,
        mail: false,
        recipients: [
          {
            name: 'Test Signer',
            email: 'legacy@example.com',
            typeOfSignature: 'aadhaar_digital_signature',
            sequence: 1,
            page_no: 1,
            x_cor: 72,
            y_cor: 600,
          },
        ],
      });
      assert.equal(created.statusCode, 200, created.body);
      const token = tokenOf(created.json().signing_info[0].signing_url);
      const started = await start(token);
      const response = await deliver(answered(await esp.complete(started.form)));
      assert.equal(response.headers.location, `/sign/${token}?aadhaar=signed`);
      const status = (
        await server.request('GET', `${API}/envelopes/${created.json().envelope_id}/status`, { key: account.key })
      ).json();
      assert.equal(status.status, 'completed');
    });
  });
}
