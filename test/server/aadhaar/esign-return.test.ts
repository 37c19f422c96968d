/**
 * After an Aadhaar eSign act the signer goes where they go after any act: the link's return_url (or the
 * envelope's redirect_url), else their signing page's done state. The new routes are in the OpenAPI document.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadCertificateInput } from '../../../server/audit/certificate.js';
import { DATABASES } from '../../support/databases.js';
import { makeDraft, sendDraft } from '../../support/envelopes.js';
import { startTestEsp, type TestEsp } from '../../support/esp.js';
import { API, startTestServer, type TestAccount, type TestServer } from '../../support/server.js';

for (const kind of DATABASES) {
  describe(`after Aadhaar eSign on ${kind}`, () => {
    let esp: TestEsp;
    let server: TestServer;
    let account: TestAccount;
    before(async () => {
      esp = await startTestEsp();
      server = await startTestServer(kind, { ...esp.env, MOHAR_DSC_TRUST_ANCHORS: esp.trustAnchorPath });
      account = await server.newAccount();
    });
    after(async () => {
      await server?.close();
      await esp?.close();
    });

    test("the signer is sent to the link's return_url", async () => {
      const draft = await makeDraft(server, account.key, {
        recipients: [{ name: 'Test Signer', email: 'signer@example.com', signature_method: 'aadhaar' }],
      });
      await sendDraft(server, account.key, draft);
      const session = await server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
        key: account.key,
        json: {
          recipient_id: draft.recipientIds[0],
          mode: 'redirect',
          return_url: 'https://portal.example.com/signed?case=42',
        },
      });
      assert.equal(session.statusCode, 201, session.body);
      const token = session.json().signing_url.split('/sign/')[1];
      const started = (
        await server.request('POST', `${API}/signing/${token}/aadhaar`, { json: { consent: true } })
      ).json();
      const answer = await esp.complete(started.form);
      const response = await server.app.inject({
        method: 'POST',
        url: '/sign/aadhaar/response',
        payload: new URLSearchParams(answer.fields!).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assert.equal(response.statusCode, 303, response.body);
      assert.equal(response.headers.location, 'https://portal.example.com/signed?case=42');

      // The certificate of completion names the eSign certificate and the e-KYC facts.
      const input = await loadCertificateInput(server.ctx.db, draft.id);
      const subject = input.recipients[0]!.certificateSubject ?? '';
      assert.match(subject, /CN=Test Signer/);
      assert.match(subject, /Aadhaar eSign/);
      assert.match(subject, /year of birth \d{4}/);
      assert.match(subject, /txn MOHAR-[0-9a-f]{32}/);
    });

    test('the OpenAPI document lists the Aadhaar eSign signer routes with their schemas', async () => {
      const doc = (await server.request('GET', `${API}/openapi.json`)).json();
      const start = doc.paths['/signing/{token}/aadhaar']?.post;
      assert.ok(start, 'POST /signing/{token}/aadhaar');
      assert.deepEqual(Object.keys(start.requestBody.content['application/json'].schema.properties).sort(), [
        'consent',
        'fields',
      ]);
      assert.ok(start.responses['200'].content['application/json'].schema.properties.autopost_url);
      assert.ok(doc.paths['/signing/{token}/aadhaar/status']?.post?.responses['200']);
    });
  });
}
