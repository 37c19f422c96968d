/**
 * Aadhaar eSign in the sandbox (issue 18): test data (envelopes made with a qsk_test_ key) signs through the
 * ESP simulator built into the server (/sandbox/esp/…), with no MOHAR_ESIGN_* at all; live data without
 * MOHAR_ESIGN_* is still refused; MOHAR_ESIGN_SANDBOX=0 refuses test data too; with a real ESP configured,
 * live data goes there and test data still to the simulator. SQLite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { createPrivateKey, sign as nodeSign } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { verifyPdf } from '../../../pdf/verify/index.js';
import { formatEsignTimestamp, signEsignResponse } from '../../../server/aadhaar/messages.js';
import { ConfigError, parseConfig } from '../../../server/config.js';
import { DATABASES } from '../../support/databases.js';
import { makeDraft, sendDraft } from '../../support/envelopes.js';
import { SIMULATOR_OTP, startTestEsp, TEST_AADHAAR, type TestEsp } from '../../support/esp.js';
import { qpdfCheck } from '../../support/pdf-fixtures.js';
import { API, startTestServer, type TestAccount, type TestServer } from '../../support/server.js';
import { pdfsigVerdicts } from '../../support/validators.js';

const SIGNER = { name: 'Test Signer', email: 'signer@example.com', signature_method: 'aadhaar' };
const PLAIN = { name: 'Asha', email: 'asha@example.com' };
const SANDBOX_ESP = '/sandbox/esp/esign/2.1';

type Account = TestAccount & { testKey?: string };
interface Started {
  txn: string;
  esp_url: string;
  form: { eSignRequest: string; aspTxnID: string };
  autopost_url: string;
}

async function tokenFor(server: TestServer, key: string, envelopeId: string, recipientId: string): Promise<string> {
  const created = await server.request('POST', `${API}/envelopes/${envelopeId}/signing-sessions`, {
    key,
    json: { recipient_id: recipientId, mode: 'redirect' },
  });
  assert.equal(created.statusCode, 201, created.body);
  return created.json().signing_url.split('/sign/')[1];
}

async function start(server: TestServer, token: string): Promise<Started> {
  const started = await server.request('POST', `${API}/signing/${token}/aadhaar`, { json: { consent: true } });
  assert.equal(started.statusCode, 200, started.body);
  return started.json() as Started;
}

function form(fields: Record<string, string>): { payload: string; headers: Record<string, string> } {
  return {
    payload: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  };
}

function hidden(html: string, name: string): string {
  const value = new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];
  assert.ok(value !== undefined, `the page has ${name}: ${html.slice(0, 400)}`);
  return value
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** What the signer's browser does at the built-in ESP: the form post, consent + Aadhaar + OTP, the auto-post back. */
async function signAtSandboxEsp(server: TestServer, started: Started, aadhaar: string = TEST_AADHAAR.success) {
  assert.equal(new URL(started.esp_url).pathname, `${SANDBOX_ESP}/signdoc`);
  const first = await server.app.inject({
    method: 'POST',
    url: new URL(started.esp_url).pathname,
    ...form({ ...started.form }),
  });
  assert.equal(first.statusCode, 200, first.body);
  assert.match(first.body, /ESP simulator/);
  assert.match(String(first.headers['content-security-policy']), /form-action 'self'/);
  const session = hidden(first.body, 'session');
  const action = /<form method="post" action="([^"]+)"/.exec(first.body)?.[1];
  assert.ok(action, 'the OTP page posts somewhere');
  const authenticateUrl = new URL(action, started.esp_url).pathname;
  assert.equal(authenticateUrl, `${SANDBOX_ESP}/authenticate`, 'the OTP page posts back to the same mount');
  const second = await server.app.inject({
    method: 'POST',
    url: authenticateUrl,
    ...form({ session, aadhaar, name: 'Test Signer', otp: SIMULATOR_OTP, consent: 'Y', action: 'sign' }),
  });
  assert.equal(second.statusCode, 200, second.body);
  const responseUrl = /<form id="esign-response" method="post" action="([^"]+)"/.exec(second.body)?.[1];
  assert.equal(responseUrl, `${server.ctx.config.baseUrl}/sign/aadhaar/response`);
  return server.app.inject({
    method: 'POST',
    url: '/sign/aadhaar/response',
    ...form({ eSignResponse: hidden(second.body, 'eSignResponse'), espTxnID: hidden(second.body, 'espTxnID') }),
  });
}

describe('MOHAR_ESIGN_SANDBOX', () => {
  test('on by default; 0/false/off turn it off; anything else stops start-up naming the setting', () => {
    assert.equal(parseConfig({}).esignSandbox, true);
    for (const off of ['0', 'false', 'OFF', 'no']) {
      assert.equal(parseConfig({ MOHAR_ESIGN_SANDBOX: off }).esignSandbox, false, off);
    }
    assert.equal(parseConfig({ MOHAR_ESIGN_SANDBOX: '1' }).esignSandbox, true);
    assert.throws(
      () => parseConfig({ MOHAR_ESIGN_SANDBOX: 'maybe' }),
      (e: unknown) => e instanceof ConfigError && /MOHAR_ESIGN_SANDBOX/.test(e.message),
    );
  });
});

for (const kind of DATABASES) {
  describe(`Aadhaar eSign sandbox on ${kind}, no MOHAR_ESIGN_*`, () => {
    let server: TestServer;
    let account: Account;
    before(async () => {
      server = await startTestServer(kind);
      account = await server.newAccount({ testMode: true });
    });
    after(() => server?.close());

    test('a test key creates, adds and patches Aadhaar signers (201/200); a live key gets 422 aadhaar_not_configured', async () => {
      const testKey = account.testKey!;
      const created = await server.request('POST', `${API}/envelopes`, {
        key: testKey,
        json: { title: 'x', recipients: [SIGNER] },
      });
      assert.equal(created.statusCode, 201, created.body);
      const id = created.json().id;
      const added = await server.request('POST', `${API}/envelopes/${id}/recipients`, {
        key: testKey,
        json: { ...SIGNER, email: 'two@example.com' },
      });
      assert.equal(added.statusCode, 201, added.body);
      const plain = await server.request('POST', `${API}/envelopes/${id}/recipients`, { key: testKey, json: PLAIN });
      const patched = await server.request('PATCH', `${API}/envelopes/${id}/recipients/${plain.json().recipient_id}`, {
        key: testKey,
        json: { signature_method: 'aadhaar' },
      });
      assert.equal(patched.statusCode, 200, patched.body);

      const live = await server.request('POST', `${API}/envelopes`, {
        key: account.key,
        json: { title: 'x', recipients: [SIGNER] },
      });
      assert.equal(live.statusCode, 422, live.body);
      assert.equal(live.json().code, 'aadhaar_not_configured');
      const liveDraft = (
        await server.request('POST', `${API}/envelopes`, {
          key: account.key,
          json: { title: 'x', recipients: [PLAIN] },
        })
      ).json();
      const liveAdd = await server.request('POST', `${API}/envelopes/${liveDraft.id}/recipients`, {
        key: account.key,
        json: SIGNER,
      });
      assert.equal(liveAdd.json().code, 'aadhaar_not_configured', liveAdd.body);
      const livePatch = await server.request(
        'PATCH',
        `${API}/envelopes/${liveDraft.id}/recipients/${liveDraft.recipients[0].recipient_id}`,
        { key: account.key, json: { signature_method: 'aadhaar' } },
      );
      assert.equal(livePatch.json().code, 'aadhaar_not_configured', livePatch.body);
    });

    test('a test envelope signs end to end through the built-in ESP simulator; the PDF carries the simulated eSign signature', async () => {
      const testKey = account.testKey!;
      const draft = await makeDraft(server, testKey, { recipients: [SIGNER] });
      await sendDraft(server, testKey, draft);
      const token = await tokenFor(server, testKey, draft.id, draft.recipientIds[0]!);
      const started = await start(server, token);
      assert.equal(
        started.esp_url,
        `${server.ctx.config.baseUrl}${SANDBOX_ESP}/signdoc`,
        'the simulator on this server, same origin',
      );
      const page = await server.app.inject({ method: 'GET', url: new URL(started.autopost_url).pathname });
      assert.equal(page.statusCode, 200);
      assert.match(
        String(page.headers['content-security-policy']),
        new RegExp(`form-action ${new URL(server.ctx.config.baseUrl).origin}`),
      );

      const response = await signAtSandboxEsp(server, started);
      assert.equal(response.statusCode, 303, response.body);
      assert.equal(response.headers.location, `/sign/${token}?aadhaar=signed`);

      const signer = await server.ctx.db
        .selectFrom('recipients')
        .selectAll()
        .where('id', '=', draft.recipientIds[0]!)
        .executeTakeFirstOrThrow();
      assert.equal(signer.status, 'signed');
      const details = JSON.parse(signer.act_details!);
      assert.equal(details.method, 'aadhaar');
      assert.equal(details.certificate.name, 'Test Signer');
      assert.equal(details.esp.url, started.esp_url);
      assert.match(details.certificate_validation.anchor, /Simulated CCA Root/);

      const revision = await server.ctx.db
        .selectFrom('document_revisions')
        .selectAll()
        .where('envelope_id', '=', draft.id)
        .where('act', '=', 'signed')
        .executeTakeFirstOrThrow();
      const signed = await server.ctx.blobs.get(revision.sha256);
      const report = verifyPdf(signed);
      const esign = report.signatures.find((s) => s.signer?.subject.includes('Test Signer'));
      assert.ok(esign, 'a signature by the e-KYC name');
      assert.ok(esign.digestValid && esign.signatureValid, esign.problems.join('; '));
      assert.match(esign.signer!.issuer, /Simulated eSign CA/);
      assert.ok(qpdfCheck(signed).ok);
      assert.ok(pdfsigVerdicts(signed).valid.every(Boolean), pdfsigVerdicts(signed).output);

      // The simulator's keys are generated once and kept in the data directory.
      assert.ok(existsSync(join(server.ctx.config.dataDir, 'esign-sandbox', 'esp-response-signing.key.pem')));
      assert.ok(existsSync(join(server.ctx.config.dataDir, 'esign-sandbox', 'asp.p12')));
    });

    test('a scripted failure at the built-in ESP comes back as a failure and leaves the envelope unchanged', async () => {
      const testKey = account.testKey!;
      const draft = await makeDraft(server, testKey, { recipients: [SIGNER] });
      await sendDraft(server, testKey, draft);
      const token = await tokenFor(server, testKey, draft.id, draft.recipientIds[0]!);
      const response = await signAtSandboxEsp(server, await start(server, token), TEST_AADHAAR.wrongOtp);
      assert.equal(response.statusCode, 303, response.body);
      assert.match(String(response.headers.location), /aadhaar=failed/);
      const signer = await server.ctx.db
        .selectFrom('recipients')
        .select('status')
        .where('id', '=', draft.recipientIds[0]!)
        .executeTakeFirstOrThrow();
      assert.notEqual(signer.status, 'signed');
    });
  });

  describe(`Aadhaar eSign sandbox on ${kind}, MOHAR_ESIGN_SANDBOX=0`, () => {
    let server: TestServer;
    let account: Account;
    before(async () => {
      server = await startTestServer(kind, { MOHAR_ESIGN_SANDBOX: '0' });
      account = await server.newAccount({ testMode: true });
    });
    after(() => server?.close());

    test('test data is refused too (422 aadhaar_not_configured) and the built-in ESP is not mounted', async () => {
      const created = await server.request('POST', `${API}/envelopes`, {
        key: account.testKey!,
        json: { title: 'x', recipients: [SIGNER] },
      });
      assert.equal(created.statusCode, 422, created.body);
      assert.equal(created.json().code, 'aadhaar_not_configured');
      const esp = await server.app.inject({
        method: 'POST',
        url: `${SANDBOX_ESP}/signdoc`,
        ...form({ eSignRequest: '<Esign/>' }),
      });
      assert.equal(esp.statusCode, 404);
    });
  });

  describe(`Aadhaar eSign sandbox on ${kind}, a real ESP configured`, () => {
    let esp: TestEsp;
    let server: TestServer;
    let account: Account;
    before(async () => {
      esp = await startTestEsp();
      server = await startTestServer(kind, { ...esp.env, MOHAR_DSC_TRUST_ANCHORS: esp.trustAnchorPath });
      account = await server.newAccount({ testMode: true });
    });
    after(async () => {
      await server?.close();
      await esp?.close();
    });

    test('live data goes to the configured ESP, test data never does: it uses the built-in simulator', async () => {
      const live = await makeDraft(server, account.key, { recipients: [SIGNER] });
      await sendDraft(server, account.key, live);
      const liveStarted = await start(server, await tokenFor(server, account.key, live.id, live.recipientIds[0]!));
      assert.equal(liveStarted.esp_url, esp.espUrl);

      const testDraft = await makeDraft(server, account.testKey!, { recipients: [SIGNER] });
      await sendDraft(server, account.testKey!, testDraft);
      const token = await tokenFor(server, account.testKey!, testDraft.id, testDraft.recipientIds[0]!);
      const started = await start(server, token);
      assert.equal(started.esp_url, `${server.ctx.config.baseUrl}${SANDBOX_ESP}/signdoc`);
      const response = await signAtSandboxEsp(server, started);
      assert.equal(response.headers.location, `/sign/${token}?aadhaar=signed`, response.body);
    });

    test('an answer signed by the built-in simulator is refused for a live transaction (the txn stays open)', async () => {
      const live = await makeDraft(server, account.key, { recipients: [SIGNER] });
      await sendDraft(server, account.key, live);
      const liveStarted = await start(server, await tokenFor(server, account.key, live.id, live.recipientIds[0]!));
      // The live request (signed by the real ASP key) is refused by the built-in ESP: it knows only the sandbox ASP.
      const atSandbox = await server.app.inject({
        method: 'POST',
        url: `${SANDBOX_ESP}/signdoc`,
        ...form({ ...liveStarted.form }),
      });
      assert.equal(atSandbox.statusCode, 400, atSandbox.body);
      // An EsignResp naming the live txn, signed with the built-in ESP's response key: not the pinned real ESP.
      const keyPem = readFileSync(
        join(server.ctx.config.dataDir, 'esign-sandbox', 'esp-response-signing.key.pem'),
        'utf8',
      );
      const certPem = readFileSync(
        join(server.ctx.config.dataDir, 'esign-sandbox', 'esp-response-signing.pem'),
        'utf8',
      );
      const key = createPrivateKey(keyPem);
      const certificate = new Uint8Array(
        Buffer.from(/-----BEGIN CERTIFICATE-----([\s\S]*?)-----END/.exec(certPem)![1]!.replace(/\s+/g, ''), 'base64'),
      );
      const forged = await signEsignResponse(
        {
          ver: '2.1',
          ts: formatEsignTimestamp(new Date()),
          txn: liveStarted.txn,
          resCode: 'X1',
          status: '0',
          errCode: 'ESP-941',
          errMsg: 'forged',
          userCertificate: '',
          signatures: [],
        },
        { certificate, keyType: 'RSA', sign: async (data) => new Uint8Array(nodeSign('sha256', data, key)) },
      );
      const answer = await server.app.inject({
        method: 'POST',
        url: '/sign/aadhaar/response',
        ...form({ eSignResponse: forged, espTxnID: liveStarted.txn }),
      });
      assert.equal(answer.statusCode, 422, answer.body);
      const row = await server.ctx.db
        .selectFrom('esign_transactions')
        .select(['state', 'used_at'])
        .where('id', '=', liveStarted.txn)
        .executeTakeFirstOrThrow();
      assert.equal(row.state, 'pending');
      assert.equal(row.used_at, null);
    });
  });
}
