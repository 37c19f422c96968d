/**
 * Builds that tests use, each made once when missing or older than its sources: the renderer's pages
 * (renderer.ts) and the compiled CLI and server (cli.ts). Test files run in parallel processes, so a lock
 * directory makes one of them build while the others wait.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = new URL('../../', import.meta.url).pathname;

export interface Build {
  readonly name: string;
  /** The file the build writes last, relative to the checkout: its time says when the build was made. */
  readonly output: string;
  /** Files and folders (relative) whose changes make the build stale. */
  readonly sources: readonly string[];
  /** node's arguments that make the build. */
  readonly command: readonly string[];
  /** The lock directory (relative). */
  readonly lock: string;
}

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((newest, name) => Math.max(newest, newestMtime(join(path, name))), stat.mtimeMs);
}

function upToDate(build: Build): boolean {
  const index = join(ROOT, build.output);
  if (!existsSync(index)) return false;
  const sources = build.sources.map((p) => newestMtime(join(ROOT, p)));
  return statSync(index).mtimeMs >= Math.max(...sources);
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

export function ensureBuilt(build: Build): void {
  const lock = join(ROOT, build.lock);
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (upToDate(build)) return;
    try {
      mkdirSync(lock);
    } catch {
      // Another process builds; a lock older than two minutes is left over from a crash.
      if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > 120_000) {
        rmSync(lock, { recursive: true, force: true });
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for another process to build the ${build.name}`);
      sleep(250);
      continue;
    }
    try {
      if (upToDate(build)) return;
      const run = spawnSync(process.execPath, build.command, {
        cwd: ROOT,
        encoding: 'utf8',
      });
      if (run.status !== 0) throw new Error(`building the ${build.name} failed:\n${run.stdout}\n${run.stderr}`);
      return;
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}
