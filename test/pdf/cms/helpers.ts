/** Small helpers for the pdf/cms tests: scratch files and synchronous openssl checks. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { isMoharError, type ErrorCode } from '../../../common/errors.js';

export interface Scratch {
  readonly dir: string;
  /** Writes `data` to `name` in the scratch directory and returns the path. */
  file(name: string, data: Uint8Array | string): string;
  remove(): void;
}

export function scratch(): Scratch {
  const dir = mkdtempSync(join(tmpdir(), 'mohar-cms-test-'));
  return {
    dir,
    file(name, data) {
      const path = join(dir, name);
      writeFileSync(path, data);
      return path;
    },
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface OpensslResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly out: string;
}

export function opensslSync(args: readonly string[]): OpensslResult {
  const r = spawnSync('openssl', args, { encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, out: r.stdout + r.stderr };
}

/** Asserts that an async call fails with MoharError(code) and returns the error. */
export async function rejectsWithCode(promise: Promise<unknown>, code: ErrorCode): Promise<Error> {
  try {
    await promise;
  } catch (e) {
    assert.ok(
      isMoharError(e, code),
      `expected MoharError ${code}, got ${e instanceof Error ? `${e.name} ${(e as { code?: string }).code ?? ''}: ${e.message}` : String(e)}`,
    );
    return e as Error;
  }
  assert.fail(`expected MoharError ${code}, but the call succeeded`);
}

export function throwsWithCode(fn: () => unknown, code: ErrorCode): Error {
  try {
    fn();
  } catch (e) {
    assert.ok(isMoharError(e, code), `expected MoharError ${code}, got ${e instanceof Error ? e.message : String(e)}`);
    return e as Error;
  }
  assert.fail(`expected MoharError ${code}, but the call succeeded`);
}

export function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}
