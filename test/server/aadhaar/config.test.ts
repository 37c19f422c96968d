import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ConfigError, parseConfig } from '../../../server/config.js';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIBAA==\n-----END CERTIFICATE-----\n';

describe('MOHAR_ESIGN_* settings', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mohar-esign-config-'));
  writeFileSync(join(dir, 'esp.pem'), `junk before\n${PEM}`);
  writeFileSync(join(dir, 'asp.p12'), Buffer.from([0x30, 0x82]));
  const full = {
    MOHAR_ESIGN_ESP_URL: 'https://esp.example.in/esign/2.1/signdoc',
    MOHAR_ESIGN_ASP_ID: 'ASP-001',
    MOHAR_ESIGN_ASP_KEY: 'asp.p12',
    MOHAR_ESIGN_ASP_KEY_PASSPHRASE: 'secret',
    MOHAR_ESIGN_ESP_CERT: 'esp.pem',
  };

  test('unset: Aadhaar eSign is off', () => {
    assert.equal(parseConfig({}, dir).esign, undefined);
  });

  test('every setting read; AuthMode defaults to 1 (OTP); paths relative to the working directory', () => {
    const esign = parseConfig(
      { ...full, MOHAR_ESIGN_STATUS_URL: 'https://esp.example.in/esign/2.1/status' },
      dir,
    ).esign!;
    assert.equal(esign.espUrl, 'https://esp.example.in/esign/2.1/signdoc');
    assert.equal(esign.statusUrl, 'https://esp.example.in/esign/2.1/status');
    assert.equal(esign.aspId, 'ASP-001');
    assert.deepEqual(esign.aspKey, { pkcs12: join(dir, 'asp.p12'), passphrase: 'secret' });
    assert.equal(esign.espCertificatePem, PEM);
    assert.equal(esign.authMode, '1');
    assert.equal(parseConfig({ ...full, MOHAR_ESIGN_AUTH_MODE: '2' }, dir).esign!.authMode, '2');
  });

  test('half a configuration stops start-up naming the missing setting', () => {
    for (const missing of ['MOHAR_ESIGN_ASP_ID', 'MOHAR_ESIGN_ASP_KEY', 'MOHAR_ESIGN_ESP_CERT'] as const) {
      const env: Record<string, string> = { ...full };
      delete env[missing];
      assert.throws(
        () => parseConfig(env, dir),
        (e: unknown) => e instanceof ConfigError && e.setting === missing,
        missing,
      );
    }
    assert.throws(
      () => parseConfig({ MOHAR_ESIGN_ASP_ID: 'x' }, dir),
      (e: unknown) => e instanceof ConfigError && e.setting === 'MOHAR_ESIGN_ESP_URL',
    );
  });

  test('bad values are refused', () => {
    const bad = (env: Record<string, string>, setting: string) =>
      assert.throws(
        () => parseConfig({ ...full, ...env }, dir),
        (e: unknown) => e instanceof ConfigError && e.setting === setting,
        JSON.stringify(env),
      );
    bad({ MOHAR_ESIGN_AUTH_MODE: '4' }, 'MOHAR_ESIGN_AUTH_MODE');
    bad({ MOHAR_ESIGN_ESP_URL: 'ftp://esp.example.in/' }, 'MOHAR_ESIGN_ESP_URL');
    bad({ MOHAR_ESIGN_STATUS_URL: 'not a url' }, 'MOHAR_ESIGN_STATUS_URL');
    bad({ MOHAR_ESIGN_ASP_ID: 'has spaces' }, 'MOHAR_ESIGN_ASP_ID');
    bad({ MOHAR_ESIGN_ESP_CERT: 'missing.pem' }, 'MOHAR_ESIGN_ESP_CERT');
    bad({ MOHAR_ESIGN_ASP_KEY: 'missing.p12' }, 'MOHAR_ESIGN_ASP_KEY');
    writeFileSync(join(dir, 'empty.pem'), 'no certificate here');
    bad({ MOHAR_ESIGN_ESP_CERT: 'empty.pem' }, 'MOHAR_ESIGN_ESP_CERT');
  });
});
