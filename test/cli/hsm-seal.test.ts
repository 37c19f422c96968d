/**
 * The seal key on a PKCS#11 token (here SoftHSM2), configured through MOHAR_SEAL_PKCS11_*: electronic signatures carry
 * the token certificate.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { verifyPdf } from '../../pdf/verify/index.js';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';
import { makePdf } from '../support/pdf-fixtures.js';
import { call, serveProcess } from '../support/process-server.js';
import { multipartBody } from '../support/server.js';
import { createSoftHsm, type SoftHsm } from '../support/softhsm.js';
import { pdfsigVerdicts } from '../support/validators.js';

const API = '/backend/api/v1';

describe('a PKCS#11 seal', () => {
  let hsm: SoftHsm;
  let database: TestDatabase;
  let child: ChildProcess | undefined;
  before(async () => {
    hsm = createSoftHsm();
    database = await createTestDatabase('sqlite');
  });
  after(async () => {
    child?.kill('SIGTERM');
    await database?.drop();
    hsm?.cleanup();
  });

  test('electronic signatures are sealed by the token key', async () => {
    const rsa = hsm.keys.find((k) => k.type === 'RSA')!;
    const server = await serveProcess(database, {
      SOFTHSM2_CONF: hsm.confPath,
      MOHAR_SEAL_PKCS11_MODULE: hsm.modulePath,
      MOHAR_SEAL_PKCS11_TOKEN: hsm.tokenLabel,
      MOHAR_SEAL_PKCS11_CERT_ID: rsa.certificateId!,
      MOHAR_SEAL_PKCS11_PIN: hsm.pin,
      MOHAR_ADMIN_EMAIL: 'admin@hsm.test',
      MOHAR_ADMIN_PASSWORD: 'hsm seal password 1',
    });
    child = server.child;
    const token = (
      await call(server.url, 'POST', '/backend/othercompanyapi/auth/login/', {
        json: { email: 'admin@hsm.test', password: 'hsm seal password 1' },
      })
    ).json().access_token;
    const key = (await call(server.url, 'POST', '/backend/othercompanyapi/apikey/generate/', { token })).json().api_key;
    const envelope = (
      await call(server.url, 'POST', `${API}/envelopes`, {
        key,
        json: { title: 'HSM', recipients: [{ name: 'Asha', email: 'asha@example.com' }] },
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
    const act = await call(server.url, 'POST', `${API}/signing/${link}`, {
      json: { action: 'sign', consent: true, signature: { kind: 'typed', text: 'Asha' } },
    });
    assert.equal(act.status, 200, act.bytes.toString());
    const final = (
      await call(server.url, 'GET', `${API}/envelopes/${envelope.id}/documents/${documentId}/download`, { key })
    ).bytes;
    const subject = rsa.certificate!.subject.split('CN=')[1]!.split('/')[0]!;
    const poppler = pdfsigVerdicts(final);
    // The certification at send, the signer's electronic signature and the completion lock (issue 26): all sealed by
    // the token key.
    assert.deepEqual(poppler.valid, [true, true, true]);
    assert.equal(
      poppler.output.match(new RegExp(`Common Name: ${subject}`, 'g'))?.length,
      3,
      `the seal signatures are made with the token certificate: ${poppler.output}`,
    );
    assert.equal(verifyPdf(final).valid, true);
  });

  test('a half-configured PKCS#11 seal stops start-up with a clear line', async () => {
    const other = await createTestDatabase('sqlite');
    try {
      await assert.rejects(
        serveProcess(other, { MOHAR_SEAL_PKCS11_MODULE: hsm.modulePath }),
        /MOHAR_SEAL_PKCS11_CERT_ID/,
      );
    } finally {
      await other.drop();
    }
  });
});
