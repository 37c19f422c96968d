import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, parseConfig } from '../../server/config.js';

describe('parseConfig', () => {
  test('defaults: loopback, port 8080, ./data, SQLite, 50 MiB', () => {
    const config = parseConfig({}, '/srv/mohar');
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.port, 8080);
    assert.equal(config.dataDir, '/srv/mohar/data');
    assert.equal(config.databaseUrl, undefined);
    assert.equal(config.baseUrl, 'http://127.0.0.1:8080');
    assert.equal(config.maxPdfBytes, 50 * 1024 * 1024);
  });

  test('reads every documented setting', () => {
    const config = parseConfig({
      MOHAR_HOST: '0.0.0.0',
      MOHAR_PORT: '9000',
      MOHAR_DATA_DIR: '/var/lib/mohar',
      MOHAR_DATABASE_URL: 'postgres://u:p@db:5432/mohar',
      MOHAR_BASE_URL: 'https://sign.example.com/',
      MOHAR_MAX_PDF_BYTES: '10MiB',
      MOHAR_ADMIN_EMAIL: 'Boss@Example.com',
      MOHAR_ADMIN_PASSWORD: 'a long enough password',
    });
    assert.equal(config.host, '0.0.0.0');
    assert.equal(config.port, 9000);
    assert.equal(config.dataDir, '/var/lib/mohar');
    assert.equal(config.databaseUrl, 'postgres://u:p@db:5432/mohar');
    assert.equal(config.baseUrl, 'https://sign.example.com');
    assert.equal(config.maxPdfBytes, 10 * 1024 * 1024);
    assert.equal(config.adminEmail, 'Boss@Example.com');
  });

  test('mail and secrets: SMTP URL, From address, a long enough secret key', () => {
    const config = parseConfig({
      MOHAR_SMTP_URL: 'smtp://u:p@mail.example.com:587',
      MOHAR_MAIL_FROM: 'Office <sign@example.com>',
      MOHAR_SECRET_KEY: 'k'.repeat(32),
    });
    assert.equal(config.smtpUrl, 'smtp://u:p@mail.example.com:587');
    assert.equal(config.mailFrom, 'Office <sign@example.com>');
    assert.equal(config.secretKey, 'k'.repeat(32));
    assert.equal(parseConfig({}).mailFrom, 'Mohar <mohar@localhost>');
    assert.throws(() => parseConfig({ MOHAR_SMTP_URL: 'http://mail' }), /MOHAR_SMTP_URL: must start with smtp:\/\//);
    assert.throws(() => parseConfig({ MOHAR_SECRET_KEY: 'short' }), /MOHAR_SECRET_KEY: must be at least 32/);
    assert.throws(() => parseConfig({ MOHAR_MAIL_FROM: 'nobody' }), /MOHAR_MAIL_FROM/);
    assert.throws(
      () => parseConfig({ MOHAR_SMTP_URL: 'smtp://user:hunter2@x', MOHAR_MAIL_FROM: 'bad' }),
      (e: Error) => !e.message.includes('hunter2'),
    );
  });

  test('MOHAR_FETCH_ALLOW_PRIVATE is 1 or 0', () => {
    assert.equal(parseConfig({}).fetchAllowPrivate, false);
    assert.equal(parseConfig({ MOHAR_FETCH_ALLOW_PRIVATE: '1' }).fetchAllowPrivate, true);
    assert.throws(
      () => parseConfig({ MOHAR_FETCH_ALLOW_PRIVATE: 'yes please' }),
      /MOHAR_FETCH_ALLOW_PRIVATE: must be 1 or 0/,
    );
  });

  test('token modules are a PATH-like list; the TSA is a URL', () => {
    const config = parseConfig({
      MOHAR_PKCS11_MODULES: '/usr/lib/libcastle.so.1.0.0::/opt/eToken/libeTPkcs11.so',
      MOHAR_TSA_URL: 'http://tsa.example.com/tsr',
    });
    assert.deepEqual(config.pkcs11Modules, ['/usr/lib/libcastle.so.1.0.0', '/opt/eToken/libeTPkcs11.so']);
    assert.equal(config.tsaUrl, 'http://tsa.example.com/tsr');
    assert.throws(() => parseConfig({ MOHAR_TSA_URL: 'tsa.example.com' }), /MOHAR_TSA_URL: must be a URL/);
  });

  const bad: [string, string, RegExp][] = [
    ['MOHAR_PORT', 'eighty', /MOHAR_PORT: must be a whole number/],
    ['MOHAR_PORT', '70000', /MOHAR_PORT: must be from 0 to 65535/],
    ['MOHAR_DATABASE_URL', 'mysql://x', /MOHAR_DATABASE_URL: must start with postgres:\/\//],
    ['MOHAR_DATABASE_URL', 'not a url', /MOHAR_DATABASE_URL: must be a URL/],
    ['MOHAR_BASE_URL', 'ftp://x', /MOHAR_BASE_URL: must start with http:\/\//],
    ['MOHAR_MAX_PDF_BYTES', 'lots', /MOHAR_MAX_PDF_BYTES: must be a size/],
    ['MOHAR_ADMIN_EMAIL', 'nobody', /MOHAR_ADMIN_EMAIL: must be an e-mail/],
    ['MOHAR_ADMIN_PASSWORD', 'short', /MOHAR_ADMIN_PASSWORD: must be at least 12/],
    ['MOHAR_LOG_LEVEL', 'loud', /MOHAR_LOG_LEVEL: must be one of/],
    ['MOHAR_HOST', 'bad host!', /MOHAR_HOST/],
  ];
  for (const [name, value, message] of bad) {
    test(`${name}=${value} stops start-up with one line naming it`, () => {
      assert.throws(
        () => parseConfig({ [name]: value }),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError);
          assert.equal(error.setting, name);
          assert.match(error.message, message);
          assert.ok(!error.message.includes('\n'));
          return true;
        },
      );
    });
  }

  test('a database URL with a password is never echoed back', () => {
    assert.throws(
      () => parseConfig({ MOHAR_DATABASE_URL: 'mysql://user:secret@host/db' }),
      (error: Error) => !error.message.includes('secret'),
    );
  });
});

describe('parseConfig: Mohar Desktop settings', () => {
  test('unset: the embedded server and no extra origins', () => {
    const config = parseConfig({});
    assert.equal(config.desktopServerUrl, undefined);
    assert.deepEqual(config.desktopTrustedOrigins, []);
  });

  test('a hosted server (https, or http on loopback) and extra origins as origins', () => {
    const config = parseConfig({
      MOHAR_DESKTOP_SERVER_URL: 'https://sign.example.com/esign/',
      MOHAR_DESKTOP_TRUSTED_ORIGINS: 'https://a.example.com, https://b.example.com:8443/ ,',
    });
    assert.equal(config.desktopServerUrl, 'https://sign.example.com/esign');
    assert.deepEqual(config.desktopTrustedOrigins, ['https://a.example.com', 'https://b.example.com:8443']);
    assert.equal(
      parseConfig({ MOHAR_DESKTOP_SERVER_URL: 'http://127.0.0.1:8080' }).desktopServerUrl,
      'http://127.0.0.1:8080',
    );
  });

  for (const [name, value, message] of [
    ['MOHAR_DESKTOP_SERVER_URL', 'http://sign.example.com', /must be https/],
    ['MOHAR_DESKTOP_SERVER_URL', 'https://user:pw@sign.example.com', /user name or password/],
    ['MOHAR_DESKTOP_SERVER_URL', 'sign.example.com', /must be a URL/],
    ['MOHAR_DESKTOP_TRUSTED_ORIGINS', 'https://a.example.com/path', /origins only/],
    ['MOHAR_DESKTOP_TRUSTED_ORIGINS', 'https://a.example.com,http://b.example.com', /must be https/],
  ] as const) {
    test(`${name}=${value} is refused`, () => {
      assert.throws(
        () => parseConfig({ [name]: value }),
        (error: unknown) => error instanceof ConfigError && error.setting === name && message.test(error.message),
      );
    });
  }
});
