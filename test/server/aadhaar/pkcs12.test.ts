import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { softwareSigner } from '../../../pdf/cms/software-signer.js';
import { createSimulatorPki, issueAspCertificate } from '../../../server/aadhaar/simulator/ca.js';
import { writePkcs12 } from '../../../server/aadhaar/simulator/pkcs12.js';

const dir = mkdtempSync(join(tmpdir(), 'mohar-p12-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('writePkcs12: OpenSSL 3 defaults, read back by openssl and by our PKCS#12 reader (the ASP key of MOHAR_ESIGN_ASP_KEY)', async () => {
  const pki = await createSimulatorPki();
  const asp = await issueAspCertificate(pki, 'P12-ASP');
  const p12 = await writePkcs12({
    pkcs8: new Uint8Array(asp.keyObject.export({ type: 'pkcs8', format: 'der' })),
    certificate: asp.certDer,
    passphrase: 'asp passphrase',
    name: 'P12-ASP ASP',
  });
  const path = join(dir, 'asp.p12');
  writeFileSync(path, p12);
  const read = spawnSync('openssl', ['pkcs12', '-in', path, '-passin', 'pass:asp passphrase', '-noout', '-info'], {
    encoding: 'utf8',
  });
  assert.equal(read.status, 0, read.stderr);
  assert.match(read.stdout + read.stderr, /MAC: sha256/);
  assert.match(read.stdout + read.stderr, /Shrouded Keybag: PBES2, PBKDF2, AES-256-CBC/);
  const signer = await softwareSigner({ pkcs12: p12, passphrase: 'asp passphrase' });
  assert.deepEqual(Buffer.from(signer.certificate), Buffer.from(asp.certDer));
  await assert.rejects(softwareSigner({ pkcs12: p12, passphrase: 'wrong' }));
});
