/**
 * "The engine must never break an earlier signature" (issue 26, points 9-11): a software signing key from
 * the test PKI, and the verdicts of three judges on every signature of a file — Mohar's verifyPdf, poppler's
 * pdfsig and, when PYHANKO_PATH names a pyHanko source tree, pyHanko's difference analysis.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PdfReader, softwareSigner, verifyPdf, type SignatureProvider } from '../../pdf/index.js';
import { PdfRef } from '../../pdf/objects.js';
import { buildPdf } from './pdf-fixtures.js';
import { createTestPki, type TestPki } from './pki.js';
import { pyhankoJudge, pyhankoMissing } from './pyhanko.js';
import { pdfsigVerdicts } from './validators.js';

/**
 * A page whose /Annots holds its note as a direct dictionary: the writer keeps it, and Mohar's allow-list
 * counts "holds a direct object" against every earlier signature once a later revision rewrites /Annots.
 */
export const inlineAnnotation = (): Buffer =>
  buildPdf(
    [
      { num: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' },
      { num: 2, body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
      {
        num: 3,
        body:
          '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Annots [<< /Type /Annot /Subtype /Text ' +
          '/Rect [100 100 120 120] /Contents (written inline) >>] >>',
      },
    ],
    '/Root 1 0 R',
  );

/**
 * Damages a file as qpdf's test file bad11.pdf is damaged: appends a revision (a new /Info) whose trailer has
 * /Prev [offset], an array instead of a number, so readers must rebuild the cross-reference data.
 */
export function withArrayPrev(pdf: Buffer): Buffer {
  const text = pdf.toString('latin1');
  const prev = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(text)![1]);
  const reader = PdfReader.open(pdf);
  const root = reader.trailer.get('Root') as PdfRef;
  const num = reader.size;
  const base = pdf[pdf.length - 1] === 0x0a ? pdf : Buffer.concat([pdf, Buffer.from('\n')]);
  const object = `${num} 0 obj\n<< /Producer (a careless tool) >>\nendobj\n`;
  const xref = base.length + object.length;
  return Buffer.concat([
    base,
    Buffer.from(
      `${object}xref\n${num} 1\n${String(base.length).padStart(10, '0')} 00000 n \n` +
        `trailer\n<< /Size ${num + 1} /Root ${root.num} ${root.gen} R /Info ${num} 0 R /Prev [${prev}] >>\n` +
        `startxref\n${xref}\n%%EOF\n`,
      'latin1',
    ),
  ]);
}

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
