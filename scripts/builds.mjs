#!/usr/bin/env node
// The builds that `npm start` and the tests use, each made only when missing or older than its sources: the
// compiled CLI and server (dist/), the signing page (renderer/dist) and the office console (renderer/dist-console).
// `npm ci` builds them all (prepare); a later start then serves at once instead of rebuilding for ~100 s.
// Run as a script it brings every build up to date, saying which it rebuilds and why.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const VITE = join(ROOT, 'node_modules/vite/bin/vite.js');
// A dependency upgrade (package-lock.json) can change what a build bundles or how it compiles.
const RENDERER_SOURCES = ['renderer/src', 'renderer/vite.shared.ts', 'common', 'package-lock.json'];

export const BUILDS = {
  compiled: {
    name: 'compiled CLI and server (dist/)',
    output: 'dist/cli/main.js',
    sources: ['common', 'pdf', 'native', 'server', 'cli', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'],
    command: [TSC, '-p', join(ROOT, 'tsconfig.build.json')],
    lock: '.build-lock-dist',
  },
  signingPage: {
    name: 'signing page (renderer/dist)',
    output: 'renderer/dist/index.html',
    sources: [...RENDERER_SOURCES, 'renderer/index.html', 'renderer/verify.html', 'renderer/vite.config.ts'],
    command: [VITE, 'build', 'renderer', '--logLevel', 'warn'],
    lock: 'renderer/.build-lock-sign',
  },
  console: {
    name: 'office console (renderer/dist-console)',
    output: 'renderer/dist-console/console.html',
    sources: [...RENDERER_SOURCES, 'renderer/console.html', 'renderer/vite.console.config.ts'],
    command: [VITE, 'build', 'renderer', '-c', 'renderer/vite.console.config.ts', '--logLevel', 'warn'],
    lock: 'renderer/.build-lock-console',
  },
};

function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((newest, name) => Math.max(newest, newestMtime(join(path, name))), stat.mtimeMs);
}

/** Why the build must be made ('missing', 'older than its sources'), or null when it is current. */
export function staleness(build, root = ROOT) {
  const output = join(root, build.output);
  if (!existsSync(output)) return 'missing';
  const newest = Math.max(...build.sources.map((p) => newestMtime(join(root, p))));
  return statSync(output).mtimeMs >= newest ? null : 'older than its sources';
}

function sleep(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Makes `build` when it is stale. Parallel processes (test files, two starts) share a lock directory: one builds
 * while the others wait; a lock older than two minutes is left over from a crash.
 */
export function ensureBuilt(build, onBuild = () => {}, root = ROOT) {
  const lock = join(root, build.lock);
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (staleness(build, root) === null) return;
    try {
      mkdirSync(lock);
    } catch {
      if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > 120_000) {
        rmSync(lock, { recursive: true, force: true });
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for another process to build the ${build.name}`);
      sleep(250);
      continue;
    }
    try {
      const why = staleness(build, root);
      if (why === null) return;
      onBuild(build, why);
      const run = spawnSync(process.execPath, build.command, { cwd: root, encoding: 'utf8' });
      if (run.status !== 0) throw new Error(`building the ${build.name} failed:\n${run.stdout}\n${run.stderr}`);
      return;
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const build of Object.values(BUILDS)) {
    ensureBuilt(build, (b, why) => console.log(`building the ${b.name}: ${why}`));
  }
}
