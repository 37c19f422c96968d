/**
 * Resource limits for reading untrusted PDFs. Every limit turns into a `pdf_too_complex` error
 * (never a crash, a hang or an out-of-memory), so an upload cannot take the process down.
 */
import { MoharError } from '../common/errors.js';

export interface PdfLimits {
  /** Deepest nesting of arrays/dictionaries (and of page/field trees) accepted. */
  readonly maxDepth: number;
  /** Largest decoded size of one stream, in bytes. */
  readonly maxInflateBytes: number;
  /** Total decoded bytes for the whole document (all streams together). */
  readonly maxTotalDecodedBytes: number;
  /** Most pages accepted (root /Count and actual page nodes). */
  readonly maxPages: number;
  /** Most cross-reference entries (objects) accepted. */
  readonly maxObjects: number;
}

export const DEFAULT_PDF_LIMITS: Readonly<PdfLimits> = Object.freeze({
  maxDepth: 200,
  maxInflateBytes: 64 * 1024 * 1024,
  maxTotalDecodedBytes: 256 * 1024 * 1024,
  maxPages: 10_000,
  maxObjects: 2_000_000,
});

export function resolveLimits(partial?: Partial<PdfLimits>): PdfLimits {
  const out = { ...DEFAULT_PDF_LIMITS };
  for (const [key, value] of Object.entries(partial ?? {})) {
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
      throw new TypeError(`PDF limit ${key} must be a positive number`);
    }
    (out as Record<string, number>)[key] = value;
  }
  return out;
}

export function tooComplex(what: string): MoharError {
  return new MoharError('pdf_too_complex', `The PDF is too complex to process: ${what}.`);
}

export function invalidPdf(what: string, cause?: unknown): MoharError {
  return new MoharError(
    'invalid_pdf',
    `The file is not a readable PDF: ${what}.`,
    cause === undefined ? {} : { cause },
  );
}

/** Errors that must never be swallowed by a repair attempt. */
export function isFatal(err: unknown): boolean {
  return err instanceof MoharError && (err.code === 'pdf_too_complex' || err.code === 'pdf_encrypted');
}
