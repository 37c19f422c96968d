/**
 * The renderer's builds for tests: the signing page (renderer/dist) and the office console
 * (renderer/dist-console), each built once when missing or older than its sources. Test files run in
 * parallel processes, so a lock directory makes one of them build while the others wait.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = new URL('../../', import.meta.url).pathname;
export const RENDERER_DIST = join(ROOT, 'renderer', 'dist');
export const CONSOLE_DIST = join(ROOT, 'renderer', 'dist-console');

interface Build {
  readonly name: string;
  readonly out: string;
  readonly index: string;
  readonly sources: readonly string[];
  readonly args: readonly string[];
}

const SHARED_SOURCES = ['renderer/src', 'renderer/vite.shared.ts', 'common'];
const SIGNING_PAGE: Build = {
  name: 'signing page',
  out: RENDERER_DIST,
  index: 'index.html',
  sources: [...SHARED_SOURCES, 'renderer/index.html', 'renderer/vite.config.ts'],
  args: ['build', 'renderer', '--logLevel', 'warn'],
};
const CONSOLE: Build = {
  name: 'console',
  out: CONSOLE_DIST,
  index: 'console.html',
  sources: [...SHARED_SOURCES, 'renderer/console.html', 'renderer/vite.console.config.ts'],
  args: ['build', 'renderer', '-c', 'renderer/vite.console.config.ts', '--logLevel', 'warn'],
};

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((newest, name) => Math.max(newest, newestMtime(join(path, name))), stat.mtimeMs);
}

function upToDate(build: Build): boolean {
  const index = join(build.out, build.index);
  if (!existsSync(index)) return false;
  const sources = build.sources.map((p) => newestMtime(join(ROOT, p)));
  return statSync(index).mtimeMs >= Math.max(...sources);
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function ensureBuilt(build: Build): string {
  const lock = join(ROOT, 'renderer', `.build-lock-${build.out.endsWith('console') ? 'console' : 'sign'}`);
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (upToDate(build)) return build.out;
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
      if (upToDate(build)) return build.out;
      const run = spawnSync(process.execPath, [join(ROOT, 'node_modules/vite/bin/vite.js'), ...build.args], {
        cwd: ROOT,
        encoding: 'utf8',
      });
      if (run.status !== 0) throw new Error(`vite ${build.args.join(' ')} failed:\n${run.stdout}\n${run.stderr}`);
      return build.out;
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

/** Returns renderer/dist, built and current. */
export function ensureRendererBuilt(): string {
  return ensureBuilt(SIGNING_PAGE);
}

/** Returns renderer/dist-console, built and current. */
export function ensureConsoleBuilt(): string {
  return ensureBuilt(CONSOLE);
}
