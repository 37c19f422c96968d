/**
 * "The engine must never break an earlier signature" (issue 26, points 9-11): a software signing key from
 * the test PKI, and the verdicts of three judges on every signature of a file — Mohar's verifyPdf, poppler's
 * pdfsig and, when PYHANKO_PATH names a pyHanko source tree, pyHanko's difference analysis.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { softwareSigner, verifyPdf, type SignatureProvider } from '../../pdf/index.js';
import { createTestPki, type TestPki } from './pki.js';
import { pyhankoJudge, pyhankoMissing } from './pyhanko.js';
import { pdfsigVerdicts } from './validators.js';

export interface TestKey {
  readonly signer: SignatureProvider;
  readonly pki: TestPki;
}

export async function makeTestKey(commonName = 'Asha Rao'): Promise<TestKey> {
  const pki = createTestPki();
  const credential = pki.issueSoftwareSigner({ commonName });
  const signer = await softwareSigner({
    keyPem: credential.keyPem,
    certificate: credential.certDer,
    chain: [...pki.chainDer],
  });
  return { signer, pki };
}

/**
 * What verifyPdf (valid, nothing `other`/`annotations` after it) and pdfsig ("Signature is Valid") say
 * against any of the `expected` signatures of `pdf`; empty when both keep every signature valid.
 */
export function complaints(pdf: Uint8Array, expected: number): string[] {
  const out: string[] = [];
  const report = verifyPdf(pdf);
  if (report.signatures.length !== expected) out.push(`verifyPdf found ${report.signatures.length} signatures`);
  for (const s of report.signatures) {
    const beyond = s.changedObjects.filter((o) => o.class === 'other' || o.class === 'annotations');
    if (!s.valid || beyond.length > 0) {
      out.push(`verifyPdf ${s.field}: ${[...s.problems, ...beyond.map((o) => o.reason)].join('; ')}`);
    }
  }
  const poppler = pdfsigVerdicts(pdf);
  if (poppler.valid.length !== expected || poppler.valid.includes(false)) out.push(`pdfsig: ${poppler.output}`);
  return out;
}

/** Why pyHanko cannot judge here (the reason a test skips with), or false when it can. */
export const pyhankoSkip = (): string | false => pyhankoMissing() ?? false;

/**
 * The same from pyHanko: intact, the whole revision covered, modifications after it at most FORM_FILLING,
 * no difference-analysis error. Only where `pyhankoSkip()` is false.
 */
export function pyhankoComplaints(pdf: Uint8Array, expected: number): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'mohar-pyhanko-'));
  try {
    writeFileSync(join(dir, 'f.pdf'), pdf);
    const judged = pyhankoJudge(join(dir, 'f.pdf'));
    if (judged.error) return [`pyHanko: ${judged.error}`];
    if (judged.signatures.length !== expected) return [`pyHanko found ${judged.signatures.length} signatures`];
    return judged.signatures
      .filter(
        (s) =>
          s.error !== undefined ||
          s.intact !== true ||
          !['ENTIRE_REVISION', 'ENTIRE_FILE'].includes(s.coverage ?? '') ||
          s.diff_error ||
          !['NONE', 'LTA_UPDATES', 'FORM_FILLING'].includes(s.modification_level ?? ''),
      )
      .map((s) => `pyHanko ${s.field}: ${JSON.stringify(s)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
