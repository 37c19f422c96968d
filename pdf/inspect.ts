/**
 * inspectPdf: everything the server needs to know about an uploaded PDF before fields are placed
 * or a signature is prepared, in one call over the bytes. Throws MoharError invalid_pdf,
 * pdf_encrypted or pdf_too_complex; any unexpected failure on hostile input becomes invalid_pdf.
 */
import { MoharError } from '../common/errors.js';
import { docMdpPermission, listSignatureFields, type SignatureFieldInfo } from './acroform.js';
import { PdfReader } from './document.js';
import { visiblePageSize } from './geometry.js';
import { invalidPdf, resolveLimits, type PdfLimits } from './limits.js';
import { PdfName } from './objects.js';
import { getPages, type Box, type Rotation } from './pages.js';
import type { XrefKind } from './xref.js';

export { DEFAULT_PDF_LIMITS, type PdfLimits } from './limits.js';

export interface PageGeometry {
  readonly mediaBox: Box;
  /** CropBox clipped to the MediaBox (equal to it when the page has none). */
  readonly cropBox: Box;
  readonly rotate: Rotation;
  /** Visible width and height in points, after /Rotate. */
  readonly width: number;
  readonly height: number;
}

export interface PdfInfo {
  /** Header version, or the catalog /Version when that is later (e.g. "1.7"). */
  readonly pdfVersion: string;
  readonly pageCount: number;
  readonly pages: readonly PageGeometry[];
  readonly signatureFields: readonly SignatureFieldInfo[];
  readonly docMdpPermission: 1 | 2 | 3 | null;
  /** Kind of the last xref section: a new incremental section should be written the same way. */
  readonly xrefKind: XrefKind;
  /** Number of revisions (the original plus each incremental update), at least 1. */
  readonly revisions: number;
  /** The file starts with a linearization dictionary that matches its length. */
  readonly linearized: boolean;
  /** The cross-reference data was broken and had to be rebuilt by scanning the file. */
  readonly repaired: boolean;
}

export function inspectPdf(bytes: Uint8Array, limits?: Partial<PdfLimits>): PdfInfo {
  const resolved = resolveLimits(limits); // a bad limit is the caller's bug: TypeError, not invalid_pdf
  try {
    const reader = PdfReader.open(bytes, resolved);
    const pages = getPages(reader);
    return {
      pdfVersion: pdfVersion(reader),
      pageCount: pages.length,
      pages: pages.map((p) => ({ mediaBox: p.mediaBox, cropBox: p.cropBox, rotate: p.rotate, ...visiblePageSize(p) })),
      signatureFields: listSignatureFields(reader, pages),
      docMdpPermission: docMdpPermission(reader),
      xrefKind: reader.xrefKind,
      revisions: Math.max(1, reader.revisions.length),
      linearized: reader.isLinearized(),
      repaired: reader.xref.reconstructed,
    };
  } catch (err) {
    if (err instanceof MoharError) throw err;
    // A bug or an unforeseen shape of hostile input: still a clean, typed refusal.
    throw invalidPdf(err instanceof Error ? err.message : String(err), err);
  }
}

/** The catalog /Version overrides the header when it is later (ISO 32000-1 7.2.2). */
function pdfVersion(reader: PdfReader): string {
  const v = reader.get(reader.catalog, 'Version');
  const catalogVersion = v instanceof PdfName && /^\d+\.\d+$/.test(v.name) ? v.name : undefined;
  if (!catalogVersion) return reader.headerVersion;
  return Number(catalogVersion) > Number(reader.headerVersion) ? catalogVersion : reader.headerVersion;
}
