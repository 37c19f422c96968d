/**
 * pyHanko as an independent judge, when a pyHanko source tree is on this machine (no registry serves it
 * here): PYHANKO_PATH is the PYTHONPATH that imports `pyhanko` and `pyhanko_certvalidator` (for example
 * "/work/pyhanko:/work/certvalidator", the trees of pyHanko 0.25.1 and certvalidator 0.26.x run with
 * Debian's python3 and its python3-* packages). Tests that need it skip with this reason when it is absent.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('../../scripts/pyhanko/judge.py', import.meta.url));

export interface PyhankoSignature {
  field: string;
  kind: string;
  intact?: boolean;
  valid?: boolean;
  coverage?: string | null;
  /** NONE, LTA_UPDATES, FORM_FILLING, ANNOTATIONS or OTHER */
  modification_level?: string | null;
  /** whether what follows the signature is allowed by the DocMDP and FieldMDP in force */
  docmdp_ok?: boolean | null;
  diff_error?: string | null;
  error?: string;
}

export interface PyhankoJudgement {
  file: string;
  signatures: PyhankoSignature[];
  error: string | null;
}

/** Why the pyHanko checks cannot run here, or null when they can. */
export function pyhankoMissing(): string | null {
  const path = process.env.PYHANKO_PATH;
  if (!path) return 'PYHANKO_PATH is not set (a fetched pyHanko source tree; see docs/signing.md)';
  try {
    execFileSync('/usr/bin/python3', ['-c', 'import pyhanko, pyhanko_certvalidator'], {
      env: { ...process.env, PYTHONPATH: path },
      stdio: 'ignore',
    });
    return null;
  } catch {
    return `pyHanko does not import from PYHANKO_PATH=${path}`;
  }
}

/** pyHanko's verdict on every signature of the file at `path` (trust is not judged). */
export function pyhankoJudge(path: string): PyhankoJudgement {
  const out = execFileSync('/usr/bin/python3', [SCRIPT, path], {
    env: { ...process.env, PYTHONPATH: process.env.PYHANKO_PATH ?? '' },
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(out.toString('utf8')) as PyhankoJudgement;
}
