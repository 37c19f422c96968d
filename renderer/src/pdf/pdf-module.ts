/**
 * Starts loading pdf.js (and its worker) once, early: at page start, in parallel with the signer view, rather
 * than after it. The link-state pages pay for a download they do not use; a signer gets the first page sooner.
 */
export type PdfModule = typeof import('./load-pdf');

let loading: Promise<PdfModule> | null = null;

export function pdfModule(): Promise<PdfModule> {
  loading ??= import('./load-pdf');
  return loading;
}
