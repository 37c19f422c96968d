import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { isMoharError } from '../../../common/errors.js';
import { signPades } from '../../../pdf/sign/pades.js';
import { verifyPdf } from '../../../pdf/verify/index.js';
import { parseConfig, type Config } from '../../../server/config.js';
import { loadSealSigner, sealSource, type SealContext } from '../../../server/seal/load-seal.js';
import { connectStorage, type Storage } from '../../../server/storage/connect.js';
import { migrateToLatest } from '../../../server/storage/migrations/index.js';
import { createTestDatabase, DATABASES, type TestDatabase } from '../../support/databases.js';
import { makePdf } from '../../support/pdf-fixtures.js';
import { opensslCmsVerify, pdfsigVerdicts, signedParts } from '../../support/validators.js';

const PASSPHRASE = 'seal-passphrase-42';

/** A CA and a seal certificate issued by it, exported as a PKCS#12 (OpenSSL 3 defaults) with the CA inside. */
function makePkcs12(dir: string): { p12Path: string; certDer: Buffer; caPath: string } {
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  run(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/O=Acme/CN=Acme Test CA',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '30',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  run(
    'req',
    '-new',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/O=Acme/CN=Acme Document Seal',
    '-keyout',
    'seal.key',
    '-out',
    'seal.csr',
  );
  writeFileSync(
    join(dir, 'seal.ext'),
    'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,nonRepudiation\n',
  );
  run(
    'x509',
    '-req',
    '-in',
    'seal.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-days',
    '30',
    '-extfile',
    'seal.ext',
    '-out',
    'seal.pem',
  );
  run(
    'pkcs12',
    '-export',
    '-inkey',
    'seal.key',
    '-in',
    'seal.pem',
    '-certfile',
    'ca.pem',
    '-passout',
    `pass:${PASSPHRASE}`,
    '-out',
    'seal.p12',
  );
  run('x509', '-in', 'seal.pem', '-outform', 'DER', '-out', 'seal.der');
  return { p12Path: join(dir, 'seal.p12'), certDer: readFileSync(join(dir, 'seal.der')), caPath: join(dir, 'ca.pem') };
}

for (const kind of DATABASES) {
  describe(`seal from a configured PKCS#12 on ${kind}`, () => {
    let database: TestDatabase;
    let storage: Storage;
    let dir: string;
    let p12: ReturnType<typeof makePkcs12>;

    const contextWith = (env: Record<string, string>): SealContext => {
      const config: Config = parseConfig(
        {
          MOHAR_DATA_DIR: database.dataDir,
          ...(database.databaseUrl ? { MOHAR_DATABASE_URL: database.databaseUrl } : {}),
          ...env,
        },
        dir,
      );
      return { db: storage.db, config, now: () => new Date() };
    };

    before(async () => {
      database = await createTestDatabase(kind);
      storage = connectStorage({ databaseUrl: database.databaseUrl, dataDir: database.dataDir });
      await migrateToLatest(storage.db);
      dir = mkdtempSync(join(tmpdir(), 'mohar-seal-p12-'));
      p12 = makePkcs12(dir);
    });
    after(async () => {
      await storage.close();
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    test('the PKCS#12 takes precedence: its certificate signs, and no installation seal is made', async () => {
      const signer = await loadSealSigner(
        contextWith({ MOHAR_SEAL_P12: 'seal.p12', MOHAR_SEAL_P12_PASSPHRASE: PASSPHRASE }),
      );
      assert.deepEqual(Buffer.from(signer.certificate), p12.certDer);
      assert.equal(signer.keyType, 'RSA');
      assert.equal(signer.chain.length, 1, 'the CA from the file is the chain');
      assert.equal((await storage.db.selectFrom('seal_keys').select('id').execute()).length, 0);

      const signed = await signPades(makePdf(), signer, {
        level: 'B-B',
        field: { invisible: true },
        signingTime: new Date(),
      });
      const poppler = pdfsigVerdicts(signed.bytes);
      assert.deepEqual(poppler.valid, [true], poppler.output);
      const { data, cms } = signedParts(signed.bytes, verifyPdf(signed.bytes).signatures[0]!.byteRange);
      const verdict = opensslCmsVerify(cms, data, p12.caPath);
      assert.ok(verdict.ok, verdict.output);
    });

    test('a wrong passphrase is seal_key_unreadable naming the file', async () => {
      await assert.rejects(
        loadSealSigner(contextWith({ MOHAR_SEAL_P12: 'seal.p12', MOHAR_SEAL_P12_PASSPHRASE: 'not it' })),
        (e: unknown) => {
          assert.ok(isMoharError(e, 'seal_key_unreadable'), String(e));
          assert.ok((e as Error).message.includes(p12.p12Path), (e as Error).message);
          assert.match((e as Error).message, /wrong passphrase\?/);
          return true;
        },
      );
      await assert.rejects(
        loadSealSigner(contextWith({ MOHAR_SEAL_P12: 'seal.p12' })),
        (e: unknown) => isMoharError(e, 'seal_key_unreadable'),
        'no passphrase given',
      );
    });

    test('a missing or unreadable file is seal_key_unreadable naming the file', async () => {
      await assert.rejects(
        loadSealSigner(contextWith({ MOHAR_SEAL_P12: 'missing.p12', MOHAR_SEAL_P12_PASSPHRASE: PASSPHRASE })),
        (e: unknown) => {
          assert.ok(isMoharError(e, 'seal_key_unreadable'), String(e));
          assert.ok((e as Error).message.includes(join(dir, 'missing.p12')), (e as Error).message);
          return true;
        },
      );
      writeFileSync(join(dir, 'garbage.p12'), 'not a PKCS#12 file');
      await assert.rejects(
        loadSealSigner(contextWith({ MOHAR_SEAL_P12: 'garbage.p12', MOHAR_SEAL_P12_PASSPHRASE: PASSPHRASE })),
        (e: unknown) => isMoharError(e, 'seal_key_unreadable') && (e as Error).message.includes('garbage.p12'),
      );
    });

    test('sealSource loads once; a failed load is retried on the next call', async () => {
      const later = join(dir, 'later.p12');
      const source = sealSource(contextWith({ MOHAR_SEAL_P12: later, MOHAR_SEAL_P12_PASSPHRASE: PASSPHRASE }));
      await assert.rejects(source(), (e: unknown) => isMoharError(e, 'seal_key_unreadable'));
      writeFileSync(later, readFileSync(p12.p12Path));
      const first = await source();
      assert.deepEqual(Buffer.from(first.certificate), p12.certDer);
      rmSync(later);
      assert.equal(await source(), first, 'the loaded signer is kept');
    });

    test('an expired PKCS#12 certificate is seal_expired', async () => {
      const ctx = contextWith({ MOHAR_SEAL_P12: 'seal.p12', MOHAR_SEAL_P12_PASSPHRASE: PASSPHRASE });
      await assert.rejects(
        loadSealSigner({ ...ctx, now: () => new Date(Date.now() + 60 * 24 * 3600 * 1000) }),
        (e: unknown) => isMoharError(e, 'seal_expired') && (e as Error).message.includes('seal.p12'),
      );
    });
  });
}
