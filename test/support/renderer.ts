/**
 * The renderer's builds for tests: the signing page (renderer/dist) and the office console
 * (renderer/dist-console), each built once when missing or older than its sources (build-once.ts).
 */
import { join } from 'node:path';
import { BUILDS, ensureBuilt, ROOT } from './build-once.js';

export const RENDERER_DIST = join(ROOT, 'renderer', 'dist');
export const CONSOLE_DIST = join(ROOT, 'renderer', 'dist-console');

/** Returns renderer/dist, built and current. */
export function ensureRendererBuilt(): string {
  ensureBuilt(BUILDS.signingPage);
  return RENDERER_DIST;
}

/** Returns renderer/dist-console, built and current. */
export function ensureConsoleBuilt(): string {
  ensureBuilt(BUILDS.console);
  return CONSOLE_DIST;
}
