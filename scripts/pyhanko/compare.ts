/**
 * Compares `mohar verify` (verifyPdf) with pyHanko on every PDF of a folder, signature by signature, and
 * lists where they disagree: pyHanko says intact but Mohar says tampered (digest or signature); pyHanko
 * says modified beyond what is allowed (OTHER, or not docmdp_ok) but Mohar says unmodified (or valid);
 * pyHanko refuses a signature Mohar calls valid; pyHanko allows what follows a signature, Mohar calls it other.
 * Needs a pyHanko source tree (PYHANKO_PATH, see docs/signing.md); nothing is copied from the folder.
 *
 * Usage: PYHANKO_PATH=/work/pyhanko:/work/certvalidator node --import tsx scripts/pyhanko/compare.ts FOLDER [--all]
 * (--all prints every signature, not only the disagreements). Exit status 1 when there is a disagreement.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMoharError } from '../../common/errors.js';
import { verifyPdf, type SignatureReport } from '../../pdf/index.js';
import type { PyhankoJudgement, PyhankoSignature } from '../../test/support/pyhanko.js';

const JUDGE = fileURLToPath(new URL('./judge.py', import.meta.url));

interface Row {
  file: string;
  field: string;
  mohar: string;
  pyhanko: string;
  disagreement: string | null;
}

function pdfsUnder(folder: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(folder).sort()) {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) out.push(...pdfsUnder(path));
    else if (name.toLowerCase().endsWith('.pdf')) out.push(path);
  }
  return out;
}

function pyhanko(files: string[]): PyhankoJudgement[] {
  const out = execFileSync('/usr/bin/python3', [JUDGE, ...files, ...(files.length === 1 ? [files[0]!] : [])], {
    env: { ...process.env, PYTHONPATH: process.env.PYHANKO_PATH ?? '' },
    maxBuffer: 256 * 1024 * 1024,
  });
  const parsed = JSON.parse(out.toString('utf8')) as PyhankoJudgement[];
  return files.length === 1 ? [parsed[0]!] : parsed;
}

const moharText = (s: SignatureReport): string =>
  `digest=${s.digestValid} signature=${s.signatureValid} changesAfter=${s.changesAfter} valid=${s.valid}`;

const pyhankoText = (p: PyhankoSignature): string =>
  p.error
    ? `refused (${p.error})`
    : `intact=${p.intact} coverage=${p.coverage} modification=${p.modification_level} docmdp_ok=${p.docmdp_ok}`;

/** Why Mohar's verdict contradicts pyHanko's on one signature, or null when they agree. */
function disagreement(m: SignatureReport, p: PyhankoSignature): string | null {
  if (p.error) return m.valid ? 'pyHanko refuses the signature but Mohar says valid' : null;
  const moharTampered = !m.digestValid || !m.signatureValid;
  if (p.intact && moharTampered) return 'pyHanko intact, Mohar tampered';
  const pyModified = p.modification_level === 'OTHER' || p.docmdp_ok === false;
  if (pyModified && (m.changesAfter === 'none' || m.valid)) return 'pyHanko modified, Mohar unmodified or valid';
  if (p.intact === false && !moharTampered) return 'pyHanko not intact, Mohar intact';
  if (p.intact && !pyModified && m.changesAfter === 'other') {
    return `pyHanko allows what follows (${p.modification_level}), Mohar says other`;
  }
  return null;
}

function compareFile(folder: string, path: string, judged: PyhankoJudgement): Row[] {
  const file = relative(folder, path);
  let report;
  try {
    report = verifyPdf(readFileSync(path));
  } catch (error) {
    if (!isMoharError(error)) throw error;
    const why = `Mohar cannot read it: ${error.code} (${error.message})`;
    if (judged.signatures.length === 0) return [];
    return [{ file, field: '*', mohar: why, pyhanko: judged.error ?? 'read', disagreement: null }];
  }
  if (judged.error) {
    if (report.signatures.length === 0) return [];
    return [{ file, field: '*', mohar: 'read', pyhanko: `not comparable: ${judged.error}`, disagreement: null }];
  }
  const rows: Row[] = [];
  for (const m of report.signatures) {
    const p = judged.signatures.find((s) => s.field === m.field);
    if (!p) {
      rows.push({
        file,
        field: m.field,
        mohar: moharText(m),
        pyhanko: 'not found',
        disagreement: 'only Mohar sees it',
      });
      continue;
    }
    rows.push({ file, field: m.field, mohar: moharText(m), pyhanko: pyhankoText(p), disagreement: disagreement(m, p) });
  }
  for (const p of judged.signatures) {
    if (!report.signatures.some((m) => m.field === p.field)) {
      rows.push({
        file,
        field: p.field,
        mohar: 'not found',
        pyhanko: pyhankoText(p),
        disagreement: 'only pyHanko sees it',
      });
    }
  }
  return rows;
}

function main(): void {
  const [folder, ...flags] = process.argv.slice(2);
  if (!folder) {
    console.error('usage: node --import tsx scripts/pyhanko/compare.ts FOLDER [--all]');
    process.exit(2);
  }
  const files = pdfsUnder(folder);
  const judged = pyhanko(files);
  const rows = files.flatMap((path, i) => compareFile(folder, path, judged[i]!));
  const shown = flags.includes('--all') ? rows : rows.filter((r) => r.disagreement !== null);
  for (const r of shown) {
    console.log(`${r.file} [${r.field}]${r.disagreement ? `  DISAGREE: ${r.disagreement}` : ''}`);
    console.log(`  mohar:   ${r.mohar}`);
    console.log(`  pyhanko: ${r.pyhanko}`);
  }
  const disagreements = rows.filter((r) => r.disagreement !== null).length;
  console.log(`${files.length} files, ${rows.length} signatures compared, ${disagreements} disagreements`);
  process.exitCode = disagreements > 0 ? 1 : 0;
}

main();
