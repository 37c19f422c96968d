/**
 * `mohar tokens`, `mohar sign` and `mohar verify` against a real SoftHSM2 token and a loopback TSA,
 * judged by pdfsig and qpdf. The PIN goes through stdin only.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { makePdf, qpdfCheck } from '../support/pdf-fixtures.js';
import { createSoftHsm, type SoftHsm } from '../support/softhsm.js';
import { startTsa, type TestTsa } from '../support/tsa.js';
import { mohar } from '../support/cli.js';
import { inlineAnnotation, withArrayPrev } from '../support/earlier-signatures.js';

const root = new URL('../../', import.meta.url).pathname;

describe('mohar tokens, sign and verify', () => {
  let hsm: SoftHsm;
  let tsa: TestTsa;
  let dir: string;
  // Asynchronous on purpose: the TSA answers from this process, so the event loop must keep running.
  const cli = (args: string[], input = '', env: Record<string, string> = {}) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, mohar(...args), {
        cwd: root,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, SOFTHSM2_CONF: hsm.confPath, ...env },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.on('close', (status) => resolve({ status, stdout, stderr }));
      child.stdin.end(input);
    });
  const pdfsig = (file: string) => spawnSync('pdfsig', [file], { encoding: 'utf8' }).stdout;

  before(async () => {
    hsm = createSoftHsm();
    const tsaCert = hsm.pki.issueTsa();
    tsa = await startTsa({
      certPem: tsaCert.certPem,
      keyPem: tsaCert.keyPem,
      chainPem: hsm.pki.intermediate.certPem + hsm.pki.root.certPem,
    });
    dir = mkdtempSync(join(tmpdir(), 'mohar-cli-sign-'));
    writeFileSync(join(dir, 'in.pdf'), makePdf({ pages: [{ rotate: 90, text: 'contract' }] }));
  });
  after(async () => {
    await tsa?.close();
    hsm?.cleanup();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('tokens lists the token and its certificates with keys', async () => {
    const run = await cli(['tokens', '--module', hsm.modulePath]);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`Token "${hsm.tokenLabel}"`));
    for (const key of hsm.keys) assert.match(run.stdout, new RegExp(`Certificate id ${key.id}`));
    assert.match(run.stdout, /RSA-2048/);
    assert.match(run.stdout, /EC P-256/);
  });

  test('signs with the token key (PIN on stdin), B-T with the TSA; verify and pdfsig agree', async () => {
    const rsa = hsm.keys.find((k) => k.type === 'RSA')!;
    const out = join(dir, 'rsa.pdf');
    const run = await cli(
      [
        'sign',
        join(dir, 'in.pdf'),
        out,
        '--module',
        hsm.modulePath,
        '--cert-id',
        rsa.id,
        '--page',
        '1',
        '--rect',
        '400,100,700,180',
        '--reason',
        'Approved',
        '--level',
        'B-T',
        '--tsa',
        tsa.url,
      ],
      `${hsm.pin}\n`,
    );
    assert.equal(run.status, 0, run.stderr + run.stdout);
    assert.ok(!run.stdout.includes(hsm.pin) && !run.stderr.includes(hsm.pin), 'the PIN is never echoed');
    const signed = readFileSync(out);
    assert.ok(signed.subarray(0, readFileSync(join(dir, 'in.pdf')).length).equals(readFileSync(join(dir, 'in.pdf'))));
    assert.match(pdfsig(out), /Signature is Valid/);
    assert.match(pdfsig(out), new RegExp(rsa.certificate!.subject.split('CN=')[1]!.split('/')[0]!));
    assert.ok(qpdfCheck(signed).ok);
    const verify = await cli(['verify', out, '--json']);
    assert.equal(verify.status, 0, verify.stdout);
    const report = JSON.parse(verify.stdout);
    assert.equal(report.signatures[0].padesLevel, 'B-T');
    assert.equal(report.signatures[0].reason, 'Approved');

    // A second signature with the EC key keeps the first one valid.
    const ec = hsm.keys.find((k) => k.type === 'EC')!;
    const twice = join(dir, 'both.pdf');
    assert.equal(
      (await cli(['sign', out, twice, '--module', hsm.modulePath, '--cert-id', ec.id], `${hsm.pin}\n`)).status,
      0,
    );
    const both = pdfsig(twice).match(/Signature Validation: .*/g) ?? [];
    assert.deepEqual(
      both.map((l) => /Signature is Valid/.test(l)),
      [true, true],
    );
    assert.equal((await cli(['verify', twice])).status, 0);
  });

  test('a wrong PIN signs nothing and says so', async () => {
    const out = join(dir, 'wrong-pin.pdf');
    const run = await cli(
      ['sign', join(dir, 'in.pdf'), out, '--module', hsm.modulePath, '--cert-id', hsm.keys[0]!.id],
      'not-the-pin\n',
    );
    assert.notEqual(run.status, 0);
    assert.match(run.stderr, /PIN/i);
    assert.ok(!existsSync(out));
  });

  test('verify exits 1 for a tampered file and for a file without signatures', async () => {
    const signed = readFileSync(join(dir, 'rsa.pdf'));
    const tampered = Buffer.from(signed);
    const at = tampered.indexOf('contract');
    tampered[at] = 'C'.charCodeAt(0);
    writeFileSync(join(dir, 'tampered.pdf'), tampered);
    const run = await cli(['verify', join(dir, 'tampered.pdf')]);
    assert.equal(run.status, 1);
    assert.match(run.stdout, /INVALID/);
    assert.equal((await cli(['verify', join(dir, 'in.pdf')])).status, 1);
  });

  /** A PKCS#12 file of a new software key (passphrase "p12 pass"). */
  const makeP12 = (name: string, keyType: 'rsa' | 'ec' = 'rsa'): string => {
    const credential = hsm.pki.issueSoftwareSigner({ commonName: name, keyType });
    const p12 = join(dir, `${name.replace(/\W+/g, '-')}.p12`);
    const made = spawnSync('openssl', [
      'pkcs12',
      '-export',
      '-inkey',
      credential.keyPath,
      '-in',
      credential.certPath,
      '-certfile',
      hsm.pki.intermediate.certPath,
      '-passout',
      'pass:p12 pass',
      '-out',
      p12,
    ]);
    assert.equal(made.status, 0, made.stderr?.toString());
    return p12;
  };

  test('a PKCS#12 file signs too (passphrase on stdin)', async () => {
    const p12 = makeP12('Office Seal', 'ec');
    const out = join(dir, 'p12.pdf');
    const run = await cli(['sign', join(dir, 'in.pdf'), out, '--p12', p12], 'p12 pass\n');
    assert.equal(run.status, 0, run.stderr);
    assert.match(pdfsig(out), /Office Seal/);
    assert.match(pdfsig(out), /Signature is Valid/);
  });

  test('a signature that would break an earlier one fails, naming it, and writes no file (issue 26 point 11)', async () => {
    const p12 = makeP12('Check Signer');
    writeFileSync(join(dir, 'inline.pdf'), inlineAnnotation());
    const once = join(dir, 'inline-once.pdf');
    const first = await cli(['sign', join(dir, 'inline.pdf'), once, '--p12', p12], 'p12 pass\n');
    assert.equal(first.status, 0, first.stderr);
    const twice = join(dir, 'inline-twice.pdf');
    const second = await cli(['sign', once, twice, '--p12', p12], 'p12 pass\n');
    assert.equal(second.status, 1, second.stdout);
    assert.match(second.stderr, /would break the earlier signature "Signature1"/);
    assert.match(second.stderr, /holds a direct object/);
    assert.ok(!existsSync(twice), 'no output file');
  });

  test('a signed file with damaged cross-reference data is refused before the passphrase is asked (point 10)', async () => {
    const p12 = makeP12('Damage Signer');
    const signed = join(dir, 'to-damage.pdf');
    assert.equal((await cli(['sign', join(dir, 'in.pdf'), signed, '--p12', p12], 'p12 pass\n')).status, 0);
    const damaged = join(dir, 'damaged.pdf');
    writeFileSync(damaged, withArrayPrev(readFileSync(signed)));
    const out = join(dir, 'damaged-signed.pdf');
    const run = await cli(['sign', damaged, out, '--p12', p12]); // nothing on stdin: a prompt would fail otherwise
    assert.equal(run.status, 1);
    assert.match(run.stderr, /cross-reference data is damaged/);
    assert.match(run.stderr, /qpdf in\.pdf out\.pdf/);
    assert.ok(!existsSync(out));
  });
});
