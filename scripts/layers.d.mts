/** Types of scripts/layers.mjs (plain JavaScript, so that eslint.config.js loads it without TypeScript). */
export interface LayerException {
  /** The importing file, or a folder: everything below it (repository path). */
  readonly from: string;
  /** The layer it may reach against the direction. */
  readonly to: string;
  readonly why: string;
}
export const SHARED: readonly string[];
export const SERVER_LAYERS: Readonly<Record<string, readonly string[]>>;
export const LAYER_EXCEPTIONS: readonly LayerException[];
export function layerOf(path: string): string;
export function layerViolation(from: string, to: string): string | undefined;
