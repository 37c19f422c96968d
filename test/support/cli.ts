/**
 * Mohar's CLI as tests start it: the compiled build in dist/ (`tsc -p tsconfig.build.json`, made once when missing or
 * older than its sources, build-once.ts). It starts in ~1 s where TypeScript through tsx takes ~3 s, and the CLI
 * suites start it a few hundred times.
 */
import { join } from 'node:path';
import { BUILDS, ensureBuilt, ROOT } from './build-once.js';

const COMPILED = BUILDS.compiled;

let built = false;

/** node's arguments that run `mohar …args`, from the current build (checked once per test process). */
export function mohar(...args: string[]): string[] {
  if (!built) ensureBuilt(COMPILED);
  built = true;
  return [join(ROOT, COMPILED.output), ...args];
}
