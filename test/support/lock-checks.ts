/**
 * pyHanko's verdicts by signature field for the field-lock tests (issue 26). pyHanko is asked only when PYHANKO_PATH
 * is set (test/support/pyhanko.ts).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, type TestContext } from 'node:test';
import { pyhankoJudge, pyhankoMissing, type PyhankoSignature } from './pyhanko.js';

/** Writes each PDF into one temporary folder per test file (removed afterwards) for pyHanko to read. */
export function usePyhanko(): (
  ctx: TestContext,
  pdf: Uint8Array,
  file: string,
) => Map<string, PyhankoSignature> | null {
  const dir = mkdtempSync(join(tmpdir(), 'mohar-locks-pyhanko-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return (ctx, pdf, file) => {
    const missing = pyhankoMissing();
    if (missing) {
      ctx.diagnostic(`pyHanko not asked: ${missing}`);
      return null;
    }
    const path = join(dir, file);
    writeFileSync(path, pdf);
    const judgement = pyhankoJudge(path);
    assert.equal(judgement.error, null, JSON.stringify(judgement));
    return new Map(judgement.signatures.map((s) => [s.field, s]));
  };
}

/** pyHanko calls every signature intact and what follows it allowed. */
export function assertPyhankoAllows(verdicts: Map<string, PyhankoSignature>, fields?: readonly string[]): void {
  for (const [field, s] of verdicts) {
    if (fields && !fields.includes(field)) continue;
    assert.equal(s.intact, true, `pyHanko: ${field} intact (${JSON.stringify(s)})`);
    assert.equal(s.docmdp_ok, true, `pyHanko: what follows ${field} is allowed (${JSON.stringify(s)})`);
  }
}

/** pyHanko reports the change after each of `fields` as not allowed (docmdp_ok false). */
export function assertPyhankoRefuses(verdicts: Map<string, PyhankoSignature>, fields: readonly string[], how: string) {
  for (const field of fields) {
    const s = verdicts.get(field);
    assert.equal(s?.intact, true, `pyHanko, ${how}: ${field} still intact over its own revision`);
    assert.equal(s?.docmdp_ok, false, `pyHanko, ${how}: ${field}: ${JSON.stringify(s)}`);
  }
}
