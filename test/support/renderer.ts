/**
 * The renderer's builds for tests: the signing page (renderer/dist) and the office console
 * (renderer/dist-console), each built once when missing or older than its sources (build-once.ts).
 */
import { join } from 'node:path';
import { ensureBuilt, ROOT, type Build } from './build-once.js';

export const RENDERER_DIST = join(ROOT, 'renderer', 'dist');
export const CONSOLE_DIST = join(ROOT, 'renderer', 'dist-console');

const VITE = join(ROOT, 'node_modules/vite/bin/vite.js');
const SHARED_SOURCES = ['renderer/src', 'renderer/vite.shared.ts', 'common'];
const SIGNING_PAGE: Build = {
  name: 'signing page',
  output: 'renderer/dist/index.html',
  sources: [...SHARED_SOURCES, 'renderer/index.html', 'renderer/vite.config.ts'],
  command: [VITE, 'build', 'renderer', '--logLevel', 'warn'],
  lock: 'renderer/.build-lock-sign',
};
const CONSOLE: Build = {
  name: 'console',
  output: 'renderer/dist-console/console.html',
  sources: [...SHARED_SOURCES, 'renderer/console.html', 'renderer/vite.console.config.ts'],
  command: [VITE, 'build', 'renderer', '-c', 'renderer/vite.console.config.ts', '--logLevel', 'warn'],
  lock: 'renderer/.build-lock-console',
};

/** Returns renderer/dist, built and current. */
export function ensureRendererBuilt(): string {
  ensureBuilt(SIGNING_PAGE);
  return RENDERER_DIST;
}

/** Returns renderer/dist-console, built and current. */
export function ensureConsoleBuilt(): string {
  ensureBuilt(CONSOLE);
  return CONSOLE_DIST;
}
