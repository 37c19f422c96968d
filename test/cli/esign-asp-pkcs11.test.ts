/**
 * The Aadhaar eSign ASP key on a PKCS#11 token (here SoftHSM2), configured through MOHAR_ESIGN_ASP_PKCS11_*
 * and opened by `mohar serve`: the Esign request is signed by the token key (its XML signature verifies with
 * the token certificate). Config: the PKCS#11 settings are read, and not together with MOHAR_ESIGN_ASP_KEY.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { verifyEsignRequest } from '../../server/aadhaar/messages.js';
import { ConfigError, parseConfig } from '../../server/config.js';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';
import { startTestEsp, type TestEsp } from '../support/esp.js';
import { makePdf } from '../support/pdf-fixtures.js';
import { call, serveProcess } from '../support/process-server.js';
import { multipartBody } from '../support/server.js';
import { createSoftHsm, type SoftHsm } from '../support/softhsm.js';

const API = '/backend/api/v1';

describe('an Aadhaar eSign ASP key on PKCS#11', () => {
  let hsm: SoftHsm;
  let esp: TestEsp;
  let database: TestDatabase;
  let child: ChildProcess | undefined;
  before(async () => {
    hsm = createSoftHsm();
    esp = await startTestEsp();
    database = await createTestDatabase('sqlite');
  });
  after(async () => {
    child?.kill('SIGTERM');
    await database?.drop();
    await esp?.close();
    hsm?.cleanup();
  });

  test('settings: module, token, CKA_ID and PIN; not together with MOHAR_ESIGN_ASP_KEY', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mohar-asp-'));
    writeFileSync(join(dir, 'esp.pem'), esp.espCertPem);
    const base = {
      MOHAR_ESIGN_ESP_URL: 'https://esp.example.in/esign',
      MOHAR_ESIGN_ASP_ID: 'ASP1',
      MOHAR_ESIGN_ESP_CERT: join(dir, 'esp.pem'),
    };
    const esign = parseConfig(
      {
        ...base,
        MOHAR_ESIGN_ASP_PKCS11_MODULE: hsm.modulePath,
        MOHAR_ESIGN_ASP_PKCS11_TOKEN: hsm.tokenLabel,
        MOHAR_ESIGN_ASP_PKCS11_CERT_ID: '01',
        MOHAR_ESIGN_ASP_PKCS11_PIN: hsm.pin,
      },
      dir,
    ).esign!;
    assert.deepEqual(esign.aspKey, {
      pkcs11: { module: hsm.modulePath, token: hsm.tokenLabel, certId: '01', pin: hsm.pin },
    });
    assert.throws(
      () =>
        parseConfig(
          {
            ...base,
            MOHAR_ESIGN_ASP_KEY: esp.aspP12Path,
            MOHAR_ESIGN_ASP_PKCS11_MODULE: hsm.modulePath,
            MOHAR_ESIGN_ASP_PKCS11_CERT_ID: '01',
            MOHAR_ESIGN_ASP_PKCS11_PIN: '1',
          },
          dir,
        ),
      (e: unknown) => e instanceof ConfigError && e.setting === 'MOHAR_ESIGN_ASP_PKCS11_MODULE',
    );
    assert.throws(
      () =>
        parseConfig(
          { ...base, MOHAR_ESIGN_ASP_PKCS11_MODULE: hsm.modulePath, MOHAR_ESIGN_ASP_PKCS11_CERT_ID: '01' },
          dir,
        ),
      (e: unknown) => e instanceof ConfigError && e.setting === 'MOHAR_ESIGN_ASP_PKCS11_PIN',
    );
  });

  test('mohar serve signs the Esign request with the token key', async () => {
    const rsa = hsm.keys.find((k) => k.type === 'RSA')!;
    const server = await serveProcess(database, {
      SOFTHSM2_CONF: hsm.confPath,
      MOHAR_ESIGN_ESP_URL: esp.espUrl,
      MOHAR_ESIGN_ASP_ID: esp.aspId,
      MOHAR_ESIGN_ESP_CERT: esp.espCertPath,
      MOHAR_ESIGN_ASP_PKCS11_MODULE: hsm.modulePath,
      MOHAR_ESIGN_ASP_PKCS11_TOKEN: hsm.tokenLabel,
      MOHAR_ESIGN_ASP_PKCS11_CERT_ID: rsa.certificateId!,
      MOHAR_ESIGN_ASP_PKCS11_PIN: hsm.pin,
      MOHAR_ADMIN_EMAIL: 'admin@asp.test',
      MOHAR_ADMIN_PASSWORD: 'asp hsm password 1',
    });
    child = server.child;
    const token = (
      await call(server.url, 'POST', '/backend/othercompanyapi/auth/login/', {
        json: { email: 'admin@asp.test', password: 'asp hsm password 1' },
      })
    ).json().access_token;
    const key = (await call(server.url, 'POST', '/backend/othercompanyapi/apikey/generate/', { token })).json().api_key;
    const envelope = (
      await call(server.url, 'POST', `${API}/envelopes`, {
        key,
        json: {
          title: 'ASP on HSM',
          recipients: [{ name: 'Test Signer', email: 'signer@example.com', signature_method: 'aadhaar' }],
        },
      })
    ).json();
    const upload = multipartBody([{ field: 'file', filename: 'a.pdf', bytes: makePdf() }]);
    const documentId = (
      await call(server.url, 'POST', `${API}/envelopes/${envelope.id}/documents`, {
        key,
        body: upload.body,
        contentType: upload.contentType,
      })
    ).json().document_id;
    const recipientId = envelope.recipients[0].recipient_id;
    await call(server.url, 'PUT', `${API}/envelopes/${envelope.id}/documents/${documentId}/fields`, {
      key,
      json: {
        fields: [{ recipient_id: recipientId, field_type: 1, page_number: 1, x: 40, y: 40, width: 200, height: 50 }],
      },
    });
    assert.equal((await call(server.url, 'POST', `${API}/envelopes/${envelope.id}/send`, { key })).status, 200);
    const link = (
      await call(server.url, 'POST', `${API}/envelopes/${envelope.id}/signing-sessions`, {
        key,
        json: { recipient_id: recipientId, mode: 'redirect' },
      })
    )
      .json()
      .signing_url.split('/sign/')[1];
    const started = await call(server.url, 'POST', `${API}/signing/${link}/aadhaar`, { json: { consent: true } });
    assert.equal(started.status, 200, started.bytes.toString());
    const request = verifyEsignRequest(started.json().form.eSignRequest, rsa.certificate!.certPem);
    assert.equal(request.aspId, esp.aspId);
    assert.equal(request.docs.length, 1);
    assert.throws(
      () => verifyEsignRequest(started.json().form.eSignRequest, esp.aspCertPem),
      'not signed by the PKCS#12 ASP key',
    );
  });
});
