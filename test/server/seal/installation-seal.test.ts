import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { isMoharError } from '../../../common/errors.js';
import { signPades } from '../../../pdf/sign/pades.js';
import { verifyPdf } from '../../../pdf/verify/index.js';
import { parseConfig, type Config } from '../../../server/config.js';
import { findInstallationSeal, loadInstallationSeal } from '../../../server/seal/installation-seal.js';
import { loadSealSigner, sealSource, type SealContext } from '../../../server/seal/load-seal.js';
import { openSecretBox } from '../../../server/seal/secret-box.js';
import { connectStorage, type Storage } from '../../../server/storage/connect.js';
import { migrateToLatest } from '../../../server/storage/migrations/index.js';
import { createTestDatabase, DATABASES, type TestDatabase } from '../../support/databases.js';
import { makePdf } from '../../support/pdf-fixtures.js';
import { opensslCmsVerify, pdfsigVerdicts, signedParts } from '../../support/validators.js';

function configFor(database: TestDatabase, env: Record<string, string> = {}): Config {
  return parseConfig(
    {
      MOHAR_DATA_DIR: database.dataDir,
      ...(database.databaseUrl ? { MOHAR_DATABASE_URL: database.databaseUrl } : {}),
      ...env,
    },
    '/',
  );
}

function pem(der: Uint8Array): string {
  return new X509Certificate(der).toString();
}

/** openssl's view of the certificate's extensions. */
function opensslExtensions(der: Uint8Array): string {
  return execFileSync(
    'openssl',
    [
      'x509',
      '-inform',
      'DER',
      '-noout',
      '-ext',
      'basicConstraints,keyUsage,extendedKeyUsage',
      '-nameopt',
      'RFC2253',
      '-subject',
      '-issuer',
    ],
    { input: der, encoding: 'utf8' },
  );
}

for (const kind of DATABASES) {
  describe(`installation seal on ${kind}`, () => {
    let database: TestDatabase;
    let storage: Storage;
    let config: Config;
    let ctx: SealContext;
    let work: string;

    const reopen = async (): Promise<void> => {
      await storage.close();
      storage = connectStorage({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
      ctx = { db: storage.db, config, now: () => new Date() };
    };

    before(async () => {
      database = await createTestDatabase(kind);
      config = configFor(database);
      storage = connectStorage({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
      await migrateToLatest(storage.db);
      ctx = { db: storage.db, config, now: () => new Date() };
      work = mkdtempSync(join(tmpdir(), 'mohar-seal-test-'));
    });
    after(async () => {
      await storage.close();
      await database.drop();
      rmSync(work, { recursive: true, force: true });
    });

    test('two concurrent first loads (separate connections) make exactly one seal', async () => {
      const others = [0, 1, 2].map(() => connectStorage({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }));
      try {
        const seals = await Promise.all(
          [storage, ...others].map(async (s) =>
            loadInstallationSeal(s.db, await openSecretBox(config), { organization: 'Acme Seals' }),
          ),
        );
        assert.equal(seals.filter((s) => s.created).length, 1, 'one instance created it');
        for (const seal of seals) {
          assert.deepEqual(seal.certificate, seals[0]!.certificate);
          assert.deepEqual(seal.signer.certificate, seals[0]!.certificate);
        }
        const rows = await storage.db.selectFrom('seal_keys').select(['id', 'active']).execute();
        assert.equal(rows.length, 1);
      } finally {
        await Promise.all(others.map((s) => s.close()));
      }
    });

    test('the same seal on every later load, and after reopening the database', async () => {
      const first = await loadSealSigner(ctx);
      const second = await loadSealSigner(ctx);
      assert.deepEqual(second.certificate, first.certificate);
      await reopen();
      const third = await loadSealSigner(ctx);
      assert.deepEqual(third.certificate, first.certificate);
      assert.deepEqual(third.chain, first.chain);
      assert.equal(third.keyType, 'EC');
      assert.equal((await loadInstallationSeal(ctx.db, await openSecretBox(config))).created, false);
      const info = await findInstallationSeal(ctx.db);
      assert.deepEqual(info?.certificate, first.certificate);
    });

    test('the seal certificate: issued by the installation CA, with the key usages; the CA is self-signed and pathlen 0', async () => {
      const seal = (await findInstallationSeal(ctx.db))!;
      assert.equal(seal.chain.length, 1);
      const leaf = new X509Certificate(seal.certificate);
      const ca = new X509Certificate(seal.chain[0]!);
      assert.ok(leaf.checkIssued(ca) && leaf.verify(ca.publicKey), 'issued by the installation CA');
      assert.ok(ca.checkIssued(ca) && ca.verify(ca.publicKey), 'the CA is self-signed');
      assert.equal(leaf.publicKey.asymmetricKeyType, 'ec');
      assert.equal(leaf.publicKey.asymmetricKeyDetails?.namedCurve, 'prime256v1');

      const leafText = opensslExtensions(seal.certificate);
      const short = /CN=Mohar document seal ([0-9a-f]{8}),O=Acme Seals/.exec(leafText)?.[1];
      assert.ok(short, leafText);
      assert.match(leafText, new RegExp(`issuer=CN=Mohar installation CA ${short},O=Acme Seals`));
      assert.match(leafText, /Key Usage: critical\s+Digital Signature, Non Repudiation\n/);
      assert.match(leafText, /Basic Constraints: critical\s+CA:FALSE/);
      assert.doesNotMatch(leafText, /Extended Key Usage/, 'no EKU: NSS refuses documentSigning-only certificates');
      const caText = opensslExtensions(seal.chain[0]!);
      assert.match(caText, /Basic Constraints: critical\s+CA:TRUE, pathlen:0/);
      assert.match(caText, /Key Usage: critical\s+Certificate Sign, CRL Sign/);

      const year = 365 * 24 * 3600 * 1000;
      const span = (c: X509Certificate) => (Date.parse(c.validTo) - Date.parse(c.validFrom)) / year;
      assert.ok(Math.abs(span(leaf) - 3) < 0.01, `seal valid 3 years (${span(leaf)})`);
      assert.ok(Math.abs(span(ca) - 10) < 0.01, `CA valid 10 years (${span(ca)})`);
      assert.ok(Date.parse(leaf.validFrom) <= Date.now());

      writeFileSync(join(work, 'ca.pem'), pem(seal.chain[0]!));
      const verify = execFileSync('openssl', ['verify', '-x509_strict', '-CAfile', join(work, 'ca.pem')], {
        input: pem(seal.certificate),
        encoding: 'utf8',
      });
      assert.match(verify, /OK/);
    });

    test('the private key is never stored in clear', async () => {
      const row = await storage.db.selectFrom('seal_keys').selectAll().executeTakeFirstOrThrow();
      const box = await openSecretBox(config);
      const pkcs8 = box.open(row.private_key, `seal_keys:${row.id}:private_key`);
      const key = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' });
      const scalar = Buffer.from(key.export({ format: 'jwk' }).d!, 'base64url');
      assert.equal(scalar.length, 32);
      const text = JSON.stringify(row);
      for (const encoding of ['base64', 'base64url', 'hex'] as const) {
        assert.ok(!text.includes(pkcs8.toString(encoding)), `PKCS#8 (${encoding}) not in the row`);
      }
      assert.ok(!text.toLowerCase().includes(scalar.toString('hex')), 'private scalar (hex) not in the row');
      assert.ok(!/PRIVATE KEY/.test(text));
      assert.match(row.private_key, /^v1\./);
      if (kind === 'sqlite') {
        // The database file itself (and its write-ahead log) holds neither the DER nor the scalar.
        await reopen();
        for (const file of ['mohar.sqlite', 'mohar.sqlite-wal']) {
          const path = join(config.dataDir, file);
          if (!existsSync(path)) continue;
          const bytes = readFileSync(path);
          assert.equal(bytes.indexOf(pkcs8), -1, `PKCS#8 DER not in ${file}`);
          assert.equal(bytes.indexOf(scalar), -1, `private scalar not in ${file}`);
        }
      }
    });

    test('a PDF sealed with signPades B-B verifies with pdfsig and with openssl cms against the installation CA', async () => {
      const seal = await loadSealSigner(ctx);
      const signingTime = new Date();
      const signed = await signPades(makePdf({ pages: 2 }), seal, {
        level: 'B-B',
        field: { invisible: true },
        signingTime,
        reason: 'Sealed by Mohar',
      });
      const poppler = pdfsigVerdicts(signed.bytes);
      assert.deepEqual(poppler.valid, [true], poppler.output);
      // NSS has no trust anchor for the installation CA, and that is its only complaint about the certificate.
      assert.match(poppler.output, /Certificate Validation: Certificate issuer isn't Trusted/, poppler.output);
      const report = verifyPdf(signed.bytes);
      assert.equal(report.signatures.length, 1);
      const { data, cms } = signedParts(signed.bytes, report.signatures[0]!.byteRange);
      writeFileSync(join(work, 'installation-ca.pem'), pem(seal.chain[0]!));
      const verdict = opensslCmsVerify(cms, data, join(work, 'installation-ca.pem'));
      assert.ok(verdict.ok, verdict.output);
      // A CA that is not the installation's does not vouch for it.
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:P-256',
          '-nodes',
          '-subj',
          '/CN=Some Other CA',
          '-keyout',
          join(work, 'other.key'),
          '-out',
          join(work, 'other-ca.pem'),
          '-days',
          '30',
        ],
        { stdio: 'ignore' },
      );
      assert.equal(opensslCmsVerify(cms, data, join(work, 'other-ca.pem')).ok, false);
    });

    test('another secret key cannot open the seal, and no second seal is made', async () => {
      const wrong: SealContext = { ...ctx, config: configFor(database, { MOHAR_SECRET_KEY: 'x'.repeat(40) }) };
      await assert.rejects(
        loadSealSigner(wrong),
        (e: unknown) => isMoharError(e, 'seal_key_unreadable') && /another secret key/.test((e as Error).message),
      );
      const rows = await storage.db.selectFrom('seal_keys').select('id').execute();
      assert.equal(rows.length, 1);
    });

    test('an expired seal is refused with seal_expired; sealSource checks validity on every call', async () => {
      const later: SealContext = { ...ctx, now: () => new Date(Date.now() + 4 * 365 * 24 * 3600 * 1000) };
      await assert.rejects(
        loadSealSigner(later),
        (e: unknown) => isMoharError(e, 'seal_expired') && /Mohar document seal/.test((e as Error).message),
      );
      let now = new Date();
      const source = sealSource({ ...ctx, now: () => now });
      const signer = await source();
      assert.equal(await source(), signer, 'loaded once, then reused');
      now = new Date(Date.now() + 4 * 365 * 24 * 3600 * 1000);
      await assert.rejects(source(), (e: unknown) => isMoharError(e, 'seal_expired'));
    });
  });
}

describe('installation seal with MOHAR_SECRET_KEY', () => {
  let database: TestDatabase;
  let storage: Storage;
  before(async () => {
    database = await createTestDatabase('sqlite');
    storage = connectStorage({ databaseUrl: undefined, dataDir: database.dataDir });
    await migrateToLatest(storage.db);
  });
  after(async () => {
    await storage.close();
    await database.drop();
  });

  test('no key file is written, and the same MOHAR_SECRET_KEY opens the seal again', async () => {
    const config = configFor(database, { MOHAR_SECRET_KEY: 'k'.repeat(44) });
    const first = await loadSealSigner({ db: storage.db, config, now: () => new Date() });
    assert.ok(!existsSync(join(database.dataDir, 'secret.key')));
    const again = await loadSealSigner({
      db: storage.db,
      config: configFor(database, { MOHAR_SECRET_KEY: 'k'.repeat(44) }),
      now: () => new Date(),
    });
    assert.deepEqual(again.certificate, first.certificate);
    // The generated key file of a server started without the setting is another key.
    await assert.rejects(
      loadSealSigner({ db: storage.db, config: configFor(database), now: () => new Date() }),
      (e: unknown) => isMoharError(e, 'seal_key_unreadable'),
    );
  });
});
