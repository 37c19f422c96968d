/** Without MOHAR_ESIGN_* an Aadhaar recipient is refused where it enters a draft, not only at send. */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { DATABASES } from '../../support/databases.js';
import { API, useTestServer } from '../../support/server.js';

const AADHAAR = { name: 'Meera', email: 'meera@example.com', signature_method: 'aadhaar' };
const PLAIN = { name: 'Asha', email: 'asha@example.com' };

function fakeEsignEnv(): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'mohar-esign-'));
  writeFileSync(join(dir, 'esp.pem'), '-----BEGIN CERTIFICATE-----\nMIIBAA==\n-----END CERTIFICATE-----\n');
  writeFileSync(join(dir, 'asp.p12'), Buffer.from([0x30]));
  return {
    MOHAR_ESIGN_ESP_URL: 'https://esp.example.in/esign',
    MOHAR_ESIGN_ASP_ID: 'ASP1',
    MOHAR_ESIGN_ASP_KEY: join(dir, 'asp.p12'),
    MOHAR_ESIGN_ESP_CERT: join(dir, 'esp.pem'),
  };
}

for (const kind of DATABASES) {
  describe(`Aadhaar availability on ${kind}, not configured`, () => {
    const t = useTestServer(kind);

    test('create with an Aadhaar signer: 422 aadhaar_not_configured, pointing at the recipient; nothing is written', async () => {
      const before = await t.server.ctx.db
        .selectFrom('envelopes')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      const response = await t.server.request('POST', `${API}/envelopes`, {
        key: t.account.key,
        json: { title: 'x', recipients: [PLAIN, AADHAAR] },
      });
      assert.equal(response.statusCode, 422, response.body);
      assert.equal(response.json().code, 'aadhaar_not_configured');
      assert.equal(response.json().errors[0].path, '/recipients/1/signature_method');
      const after = await t.server.ctx.db
        .selectFrom('envelopes')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      assert.equal(Number(after.n), Number(before.n));
    });

    test('adding or patching a recipient to Aadhaar: 422 aadhaar_not_configured', async () => {
      const draft = (
        await t.server.request('POST', `${API}/envelopes`, {
          key: t.account.key,
          json: { title: 'x', recipients: [PLAIN] },
        })
      ).json();
      const added = await t.server.request('POST', `${API}/envelopes/${draft.id}/recipients`, {
        key: t.account.key,
        json: AADHAAR,
      });
      assert.equal(added.statusCode, 422, added.body);
      assert.equal(added.json().code, 'aadhaar_not_configured');
      const patched = await t.server.request(
        'PATCH',
        `${API}/envelopes/${draft.id}/recipients/${draft.recipients[0].recipient_id}`,
        { key: t.account.key, json: { signature_method: 'aadhaar' } },
      );
      assert.equal(patched.statusCode, 422, patched.body);
      assert.equal(patched.json().code, 'aadhaar_not_configured');
    });
  });

  describe(`Aadhaar availability on ${kind}, configured`, () => {
    const t = useTestServer(kind, fakeEsignEnv());

    test('create, add and patch accept Aadhaar signers', async () => {
      const created = await t.server.request('POST', `${API}/envelopes`, {
        key: t.account.key,
        json: { title: 'x', recipients: [AADHAAR] },
      });
      assert.equal(created.statusCode, 201, created.body);
      const id = created.json().id;
      const added = await t.server.request('POST', `${API}/envelopes/${id}/recipients`, {
        key: t.account.key,
        json: { ...AADHAAR, email: 'two@example.com' },
      });
      assert.equal(added.statusCode, 201, added.body);
      const plain = await t.server.request('POST', `${API}/envelopes/${id}/recipients`, {
        key: t.account.key,
        json: PLAIN,
      });
      const patched = await t.server.request(
        'PATCH',
        `${API}/envelopes/${id}/recipients/${plain.json().recipient_id}`,
        { key: t.account.key, json: { signature_method: 'aadhaar' } },
      );
      assert.equal(patched.statusCode, 200, patched.body);
    });
  });
}
