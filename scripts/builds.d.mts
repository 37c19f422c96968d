/** Types of scripts/builds.mjs (plain JavaScript, so that `npm start` runs it without TypeScript). */
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
export const ROOT: string;
export const BUILDS: { readonly compiled: Build; readonly signingPage: Build; readonly console: Build };
/** `root`: the checkout the build's paths are relative to (default: this one). */
export function staleness(build: Build, root?: string): 'missing' | 'older than its sources' | null;
export function ensureBuilt(build: Build, onBuild?: (build: Build, why: string) => void, root?: string): void;
