/**
 * The sandbox's mock USB DSC requests end to end through the API: only a test key of a test-mode account
 * makes one; the signing link's "Sign with a test certificate" signs PAdES B-B with an ephemeral self-signed
 * certificate; pdfsig judges the result; download is refused until then; nobody gets mail.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { signPades } from '../../../pdf/sign/pades.js';
import { makeTestCertificate } from '../../../server/domain/sandbox/test-certificate.js';
import { DATABASES } from '../../support/databases.js';
import { makeDraft, sendDraft } from '../../support/envelopes.js';
import { makePdf, qpdfCheck } from '../../support/pdf-fixtures.js';
import { API, multipartBody, useTestServer, type TestServer } from '../../support/server.js';
import { pdfsigVerdicts } from '../../support/validators.js';
import { verifyWebhook } from '../../../server/webhooks/verify.js';
import { WebhookWorker } from '../../../server/webhooks/worker.js';
import { startReceiver } from '../webhooks/receiver.js';

const pdf = makePdf({ pages: 2 });

async function createMock(
  server: TestServer,
  key: string,
  fields: Record<string, string> = {},
  file: Uint8Array | null = pdf,
) {
  const parts = [
    ...(file ? [{ field: 'file', filename: 'contract.pdf', bytes: file }] : []),
    ...Object.entries({ signer_name: 'Asha Verma', signer_email: 'asha@example.com', ...fields }).map(
      ([field, value]) => ({ field, bytes: Buffer.from(value) }),
    ),
  ];
  const { body, contentType } = multipartBody(parts);
  return server.app.inject({
    method: 'POST',
    url: `${API}/sandbox/mock-dsc/requests`,
    headers: { 'x-api-key': key, 'content-type': contentType },
    payload: body,
  });
}

const tokenOf = (signingUrl: string) => signingUrl.split('/sign/')[1]!;

for (const kind of DATABASES) {
  describe(`sandbox mock DSC on ${kind}`, () => {
    const t = useTestServer(kind, { MOHAR_WEBHOOK_ALLOW_PRIVATE: '1' });

    test('only a test key of a test-mode account makes a mock request', async () => {
      const live = await createMock(t.server, t.account.key);
      assert.equal(live.statusCode, 403, live.body);
      assert.equal(live.json().code, 'mock_signing_not_enabled');
      const testAccount = await t.server.newAccount({ testMode: true });
      const liveOfTestAccount = await createMock(t.server, testAccount.key);
      assert.equal(liveOfTestAccount.json().code, 'mock_signing_not_enabled');
      assert.equal((await createMock(t.server, 'qsk_test_nonsense')).statusCode, 401);
    });

    test('bad input is refused with the failing field', async () => {
      const { testKey } = await t.server.newAccount({ testMode: true });
      const noFile = await createMock(t.server, testKey!, {}, null);
      assert.equal(noFile.statusCode, 422, noFile.body);
      assert.ok(noFile.json().errors.some((e: { path: string }) => e.path === '/file'));
      const badEmail = await createMock(t.server, testKey!, { signer_email: 'not-an-address' });
      assert.equal(badEmail.statusCode, 422);
      assert.ok(badEmail.json().errors.some((e: { path: string }) => e.path === '/signer_email'));
      const notPdf = await createMock(t.server, testKey!, {}, Buffer.from('hello, not a pdf'));
      assert.equal(notPdf.statusCode, 422);
      assert.equal(notPdf.json().code, 'invalid_pdf');
    });

    test('pending -> signed with a test certificate -> completed; pdfsig sees an intact self-signed signature', async () => {
      const { testKey, accountId } = await t.server.newAccount({ testMode: true });
      const created = await createMock(t.server, testKey!, { external_id: 'mock-1' });
      assert.equal(created.statusCode, 201, created.body);
      const request = created.json();
      assert.equal(request.status, 'pending');
      assert.match(request.signing_url, /\/sign\/[A-Za-z0-9_-]{20,}$/);
      assert.equal(request.webhook_secret, undefined);
      const hours = (Date.parse(request.expires_at) - t.server.clock.now().getTime()) / 3600_000;
      assert.ok(hours > 23.9 && hours <= 24, `the link lives 24 hours (${hours})`);

      const before = await t.server.request('GET', `${API}/sandbox/mock-dsc/requests/${request.public_id}`, {
        key: testKey,
      });
      assert.equal(before.json().status, 'pending');
      assert.equal(before.json().certificate, null);
      const early = await t.server.request('GET', `${API}/sandbox/mock-dsc/requests/${request.public_id}/download`, {
        key: testKey,
      });
      assert.equal(early.statusCode, 409);
      assert.equal(early.json().code, 'signing_not_completed');

      const view = await t.server.request('GET', `${API}/signing/${tokenOf(request.signing_url)}`);
      assert.equal(view.statusCode, 200, view.body);
      assert.equal(view.json().recipient.signature_method, 'dsc');
      assert.equal(view.json().sandbox, true);

      const signed = await t.server.request('POST', `${API}/signing/${tokenOf(request.signing_url)}/mock-dsc`);
      assert.equal(signed.statusCode, 200, signed.body);
      assert.equal(signed.json().envelope_status, 'completed');

      const after = (
        await t.server.request('GET', `${API}/sandbox/mock-dsc/requests/${request.public_id}`, { key: testKey })
      ).json();
      assert.equal(after.status, 'completed');
      assert.equal(after.external_id, 'mock-1');
      assert.match(after.certificate.subject, /Asha Verma \(TEST\)/);
      assert.match(after.certificate.subject, /asha@example\.com/);
      assert.match(after.certificate.subject, /TEST CERTIFICATE - not a legally trusted DSC/);
      assert.equal(after.certificate.subject, after.certificate.issuer, 'self-signed');
      // DSC trust: the sandbox's self-signed test certificate is recorded as such, never refused, never fetched for.
      const act = await t.server.ctx.db
        .selectFrom('recipients')
        .select('act_details')
        .where('envelope_id', '=', request.envelope_id)
        .where('status', '=', 'signed')
        .executeTakeFirstOrThrow();
      const details = JSON.parse(act.act_details!);
      assert.equal(details.trust, 'test_certificate');
      assert.equal(details.certificate_validation.chain_status, 'not_checked');

      const download = await t.server.request('GET', `${API}/sandbox/mock-dsc/requests/${request.public_id}/download`, {
        key: testKey,
      });
      assert.equal(download.statusCode, 200);
      assert.equal(download.headers['content-type'], 'application/pdf');
      const final = download.rawPayload;
      assert.ok(final.subarray(0, pdf.length).equals(Buffer.from(pdf)), 'the uploaded bytes are an exact prefix');
      const poppler = pdfsigVerdicts(final);
      assert.deepEqual(
        poppler.valid,
        [true, true, true],
        `the certification at send, the test certificate's signature, the completion lock: ${poppler.output}`,
      );
      assert.match(poppler.output, /Asha Verma \(TEST\)/);
      assert.doesNotMatch(poppler.output, /Certificate is Trusted/);
      assert.ok(qpdfCheck(final).ok, qpdfCheck(final).output);

      // The same envelope through the v1 API; no mail to anyone.
      const envelope = await t.server.request('GET', `${API}/envelopes/${request.envelope_id}`, { key: testKey });
      assert.equal(envelope.json().status, 'completed');
      const mails = await t.server.ctx.db
        .selectFrom('outbox_mail')
        .select('id')
        .where('account_id', '=', accountId)
        .execute();
      assert.equal(mails.length, 0, 'a mock request mails nobody');
      // A used link cannot sign again.
      assert.equal(
        (await t.server.request('POST', `${API}/signing/${tokenOf(request.signing_url)}/mock-dsc`)).statusCode,
        410,
      );
    });

    test('another account sees 404; an ordinary DSC link cannot use the test certificate; the link expires after 24 hours', async () => {
      const owner = await t.server.newAccount({ testMode: true });
      const other = await t.server.newAccount({ testMode: true });
      const request = (await createMock(t.server, owner.testKey!)).json();
      const foreign = await t.server.request('GET', `${API}/sandbox/mock-dsc/requests/${request.public_id}`, {
        key: other.testKey,
      });
      assert.equal(foreign.statusCode, 404);
      assert.equal(foreign.json().code, 'mock_request_not_found');

      const draft = await makeDraft(t.server, owner.testKey!, {
        recipients: [{ name: 'Token Holder', email: 'token@example.com', signature_method: 'dsc' }],
      });
      await sendDraft(t.server, owner.testKey!, draft);
      const session = await t.server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
        key: owner.testKey,
        json: { recipient_id: draft.recipientIds[0], mode: 'redirect' },
      });
      const ordinary = await t.server.request('POST', `${API}/signing/${tokenOf(session.json().signing_url)}/mock-dsc`);
      assert.equal(ordinary.statusCode, 403, ordinary.body);
      assert.equal(ordinary.json().code, 'mock_signing_not_enabled');
      assert.equal(
        (await t.server.request('GET', `${API}/signing/${tokenOf(session.json().signing_url)}`)).json().sandbox,
        false,
      );

      t.server.clock.advance(24 * 3600 + 60);
      const late = await t.server.request('POST', `${API}/signing/${tokenOf(request.signing_url)}/mock-dsc`);
      assert.equal(late.statusCode, 410, late.body);
      const status = (
        await t.server.request('GET', `${API}/sandbox/mock-dsc/requests/${request.public_id}`, { key: owner.testKey })
      ).json();
      assert.equal(status.status, 'expired');
    });

    test("a sandbox request is never refused for identity: another person's test certificate is recorded", async () => {
      const { testKey } = await t.server.newAccount({ testMode: true });
      const request = (await createMock(t.server, testKey!)).json();
      const token = tokenOf(request.signing_url);
      const view = (await t.server.request('GET', `${API}/signing/${token}`)).json();
      const base = `${API}/signing/${token}/documents/${view.documents[0].document_id}`;
      const prepared = await t.server.request('GET', `${base}/prepared`);
      assert.equal(prepared.statusCode, 200, prepared.body);
      const someoneElse = await makeTestCertificate({ name: 'Ravi Kumar', email: 'ravi@example.com' }, new Date());
      const signed = await signPades(prepared.rawPayload, someoneElse.signer, {
        level: 'B-B',
        field: { name: decodeURIComponent(String(prepared.headers['x-mohar-signature-field'])) },
        signingTime: new Date(),
      });
      const upload = await t.server.app.inject({
        method: 'PUT',
        url: `${base}/signed`,
        headers: { 'content-type': 'application/pdf' },
        payload: signed.bytes,
      });
      assert.equal(upload.statusCode, 200, upload.body);
      const act = await t.server.ctx.db
        .selectFrom('recipients')
        .select('act_details')
        .where('envelope_id', '=', request.envelope_id)
        .executeTakeFirstOrThrow();
      const details = JSON.parse(act.act_details!);
      assert.equal(details.trust, 'test_certificate');
      assert.deepEqual([details.name_match, details.email_match], [false, false]);
    });

    test('webhook_url gets exactly one envelope.completed, signed with the returned secret', async () => {
      const receiver = await startReceiver();
      try {
        const { testKey } = await t.server.newAccount({ testMode: true });
        const refused = await createMock(t.server, testKey!, { webhook_url: 'ftp://example.com/hook' });
        assert.equal(refused.statusCode, 422);
        assert.equal(refused.json().code, 'invalid_webhook_url');

        const request = (await createMock(t.server, testKey!, { webhook_url: receiver.url })).json();
        assert.match(request.webhook_secret, /^whsec_/);
        const worker = new WebhookWorker(t.server.ctx, { listen: false });
        await worker.deliverDue();
        assert.equal(receiver.received.length, 0, 'nothing before signing');

        assert.equal(
          (await t.server.request('POST', `${API}/signing/${tokenOf(request.signing_url)}/mock-dsc`)).statusCode,
          200,
        );
        await t.server.runJobs();
        await worker.deliverDue();
        await worker.deliverDue();
        assert.equal(receiver.received.length, 1);
        const got = receiver.received[0]!;
        const verified = await verifyWebhook({
          rawBody: got.rawBody,
          headers: got.headers,
          secrets: request.webhook_secret,
          now: t.server.clock.now(),
        });
        assert.ok(verified.ok, JSON.stringify(verified));
        assert.equal(verified.event.type, 'envelope.completed');
        assert.equal((verified.event.data.envelope as { id: string }).id, request.envelope_id);
        const wrong = await verifyWebhook({
          rawBody: got.rawBody,
          headers: got.headers,
          secrets: 'whsec_wrong',
          now: t.server.clock.now(),
        });
        assert.equal(wrong.ok, false);
      } finally {
        await receiver.close();
      }
    });
  });
}
