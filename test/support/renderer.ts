/**
 * The signing page's build for tests: builds renderer/dist once when it is missing or older than its sources
 * (renderer/, the bridge contract). Test files run in parallel processes, so a lock directory makes one of
 * them build while the others wait.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = new URL('../../', import.meta.url).pathname;
export const RENDERER_DIST = join(ROOT, 'renderer', 'dist');
const LOCK = join(ROOT, 'renderer', '.build-lock');

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((newest, name) => Math.max(newest, newestMtime(join(path, name))), stat.mtimeMs);
}

function upToDate(): boolean {
  const index = join(RENDERER_DIST, 'index.html');
  if (!existsSync(index)) return false;
  const sources = ['renderer/src', 'renderer/index.html', 'renderer/vite.config.ts', 'common/desktop-bridge.ts'].map((p) => newestMtime(join(ROOT, p)));
  return statSync(index).mtimeMs >= Math.max(...sources);
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Returns renderer/dist, built and current. */
export function ensureRendererBuilt(): string {
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (upToDate()) return RENDERER_DIST;
    try {
      mkdirSync(LOCK);
    } catch {
      // Another process builds; a lock older than two minutes is left over from a crash.
      if (existsSync(LOCK) && Date.now() - statSync(LOCK).mtimeMs > 120_000) rmSync(LOCK, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error('timed out waiting for another process to build the signing page');
      sleep(250);
      continue;
    }
    try {
      if (upToDate()) return RENDERER_DIST;
      const run = spawnSync(process.execPath, [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', 'renderer', '--logLevel', 'warn'], { cwd: ROOT, encoding: 'utf8' });
      if (run.status !== 0) throw new Error(`vite build renderer failed:\n${run.stdout}\n${run.stderr}`);
      return RENDERER_DIST;
    } finally {
      rmSync(LOCK, { recursive: true, force: true });
    }
  }
}
