/**
 * Where the mock signature goes: into the PDF's own first unsigned signature field when it has one (as a
 * USB DSC signer would be asked to), else a box at the bottom right of the last page.
 */
import type { DocumentView } from '../documents/documents.js';

export const MOCK_BOX = { width: 200, height: 60, margin: 36 } as const;

export function signatureFieldFor(
  document: Pick<DocumentView, 'pages' | 'signature_fields'>,
): { pdf_signature_field: string } | { page_number: number; x: number; y: number; width: number; height: number } {
  const existing = document.signature_fields.find((f) => !f.signed);
  if (existing) return { pdf_signature_field: existing.name };
  const page = document.pages[document.pages.length - 1]!;
  const width = Math.min(MOCK_BOX.width, page.width - 2 * Math.min(MOCK_BOX.margin, page.width / 10));
  const height = Math.min(MOCK_BOX.height, page.height / 4);
  const margin = Math.min(MOCK_BOX.margin, (page.width - width) / 2, (page.height - height) / 2);
  return {
    page_number: document.pages.length,
    x: page.width - width - margin,
    y: page.height - height - margin,
    width,
    height,
  };
}
