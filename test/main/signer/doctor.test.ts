/**
 * The token doctor against SoftHSM2: two tokens; on the first a signing certificate, an encryption-only one and
 * one expiring in 10 days, and a wrong PIN typed from another process (SoftHSM then reports
 * CKF_USER_PIN_COUNT_LOW); on the second a self-made certificate whose chain reaches no trusted root, and a locked
 * PIN. SoftHSM has no retry counter and never locks by itself (test/support/softhsm.ts), so the lock is written
 * into its token store (setPersistedTokenFlags), which its C_GetTokenInfo then reports. The clock: against a
 * reference time, and a certificate issued after the computer's "today".
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import pkcs11js from 'pkcs11js';
import type { DoctorFinding, DoctorReport } from '../../../common/desktop-doctor.js';
import { runDoctor } from '../../../main/signer/index.js';
import { createSoftHsm, type SoftHsm } from '../../support/softhsm.js';

let hsm: SoftHsm;
let dir: string;
const SECOND = 'Second Token';

before(() => {
  hsm = createSoftHsm({
    keys: [
      { id: '01', label: 'sign', type: 'rsa', commonName: 'Asha Rao' },
      {
        id: '03',
        label: 'encrypt',
        type: 'rsa',
        commonName: 'Asha Rao Encryption',
        keyUsage: 'keyEncipherment, dataEncipherment',
      },
      { id: '04', label: 'soon', type: 'ec', commonName: 'Asha Rao Renewal Due', days: 10 },
    ],
  });
  // A wrong PIN from another process, as a signer mistyping in another program.
  assert.throws(() => hsm.pkcs11Tool(['--login', '--pin', '999999', '--list-objects']));

  dir = mkdtempSync(join(tmpdir(), 'mohar-doctor-'));
  execFileSync('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    join(dir, 'k.pem'),
    '-out',
    join(dir, 'c.pem'),
    '-subj',
    '/CN=Self Made Signer',
    '-days',
    '365',
    '-addext',
    'keyUsage=critical,digitalSignature,nonRepudiation',
    '-addext',
    'basicConstraints=critical,CA:FALSE',
  ]);
  execFileSync('openssl', [
    'pkcs8',
    '-topk8',
    '-nocrypt',
    '-in',
    join(dir, 'k.pem'),
    '-outform',
    'DER',
    '-out',
    join(dir, 'k.der'),
  ]);
  execFileSync('openssl', ['x509', '-in', join(dir, 'c.pem'), '-outform', 'DER', '-out', join(dir, 'c.der')]);
  hsm.initToken(SECOND);
  const onSecond = (args: string[]) =>
    execFileSync(
      'pkcs11-tool',
      ['--module', hsm.modulePath, '--token-label', SECOND, '--login', '--pin', hsm.pin, ...args],
      {
        env: { ...process.env, SOFTHSM2_CONF: hsm.confPath },
        stdio: 'pipe',
      },
    );
  onSecond(['--write-object', join(dir, 'k.der'), '--type', 'privkey', '--id', '11', '--usage-sign']);
  onSecond(['--write-object', join(dir, 'c.der'), '--type', 'cert', '--id', '11']);
  hsm.setPersistedTokenFlags(SECOND, { set: pkcs11js.CKF_USER_PIN_LOCKED });
});

after(() => {
  hsm?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const anchors = () => [hsm.chainDer[1]!];
const codes = (report: DoctorReport, subject: RegExp): string[] =>
  report.findings.filter((f) => subject.test(f.subject)).map((f) => f.code);
const one = (report: DoctorReport, code: string, subject: RegExp): DoctorFinding => {
  const found = report.findings.filter((f) => f.code === code && subject.test(f.subject));
  assert.equal(found.length, 1, `${code} for ${subject}: ${JSON.stringify(report.findings, null, 1)}`);
  return found[0]!;
};

test('two tokens: signing vs encryption, expiring, untrusted chain, PIN count low and locked', async () => {
  const report = await runDoctor({ onlyModules: [hsm.modulePath], anchors: anchors() });
  assert.equal(report.worst, 'error');

  assert.deepEqual(codes(report, /^Asha Rao \(/), ['certificate_signing']);
  assert.deepEqual(codes(report, /^Asha Rao Encryption/), ['certificate_encryption']);
  const soon = one(report, 'certificate_expiring', /^Asha Rao Renewal Due/);
  assert.equal(soon.severity, 'warning');
  assert.match(soon.summary.en, /expires in 10 days/);
  assert.match(soon.summary.hi, /10 दिनों में/);

  const untrusted = one(report, 'chain_untrusted', /^Self Made Signer/);
  assert.equal(untrusted.severity, 'error');
  assert.match(untrusted.advice.hi, /CCA/);

  const low = one(report, 'pin_count_low', new RegExp(`Token "${hsm.tokenLabel}"`));
  assert.equal(low.severity, 'warning');
  const locked = one(report, 'pin_locked', new RegExp(`Token "${SECOND}"`));
  assert.equal(locked.severity, 'error');
  assert.match(locked.advice.en, /SO \(admin\) PIN/);
  assert.ok(locked.advice.hi.length > 0 && locked.advice.hi !== locked.advice.en);

  // The CA certificate on the token is not a signer's: no finding names it.
  assert.equal(codes(report, /Mohar Test Intermediate|Intermediate/).length, 0);
  // Everything on the first token chains to the test root.
  assert.equal(codes(report, /^Asha Rao/).filter((c) => c === 'chain_untrusted').length, 0);
});

test('the clock: ahead of a reference time, and behind a certificate issued "tomorrow"', async () => {
  const now = new Date();
  const ahead = await runDoctor({
    onlyModules: [hsm.modulePath],
    anchors: anchors(),
    now,
    referenceTime: { at: new Date(now.getTime() - 12 * 60_000), source: 'mohar.example' },
  });
  const clock = one(ahead, 'clock_off', /clock/);
  assert.match(clock.summary.en, /12 minutes ahead of the time of mohar\.example/);
  assert.match(clock.summary.hi, /12 मिनट आगे/);

  const yesterday = new Date(now.getTime() - 2 * 86_400_000);
  const behind = await runDoctor({ onlyModules: [hsm.modulePath], anchors: anchors(), now: yesterday });
  assert.equal(one(behind, 'clock_behind_certificate', /clock/).severity, 'error');

  const inTime = await runDoctor({
    onlyModules: [hsm.modulePath],
    anchors: anchors(),
    now,
    referenceTime: { at: new Date(now.getTime() + 60_000), source: 'mohar.example' },
  });
  assert.equal(codes(inTime, /clock/).length, 0);
});

test('mohar tokens --doctor prints the findings in Hindi and exits 1 on an error', async () => {
  const { doctorCommand } = await import('../../../cli/doctor.js');
  const { parseConfig } = await import('../../../server/config.js');
  const written: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string) => {
    written.push(String(chunk));
    return true;
  }) as typeof process.stdout.write;
  try {
    await doctorCommand(parseConfig({ MOHAR_DSC_TRUST_ANCHORS: hsm.pki.root.certPath }), {
      module: [hsm.modulePath],
      lang: 'hi',
    });
  } finally {
    process.stdout.write = write;
  }
  const text = written.join('');
  assert.match(text, /\[त्रुटि\] Token "Second Token".*PIN लॉक/);
  assert.match(text, /क्या करें:/);
  assert.equal(process.exitCode, 1);
  process.exitCode = 0;
  assert.ok(readFileSync(hsm.pki.root.certPath).length > 0);
});
