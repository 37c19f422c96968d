/**
 * Performance marks the benchmark reads (bench/signing-page.ts): when the signer view arrived, pdf.js was
 * loaded and the first document opened, when the first page was drawn, and when every field was usable with
 * its page drawn under it.
 */
export const MARKS = {
  viewLoaded: 'mohar:view-loaded',
  pdfjsLoaded: 'mohar:pdfjs-loaded',
  documentOpened: 'mohar:document-opened',
  firstPage: 'mohar:first-page',
  fieldsInteractive: 'mohar:fields-interactive',
} as const;

export function markOnce(name: (typeof MARKS)[keyof typeof MARKS]): void {
  if (performance.getEntriesByName(name, 'mark').length === 0) performance.mark(name);
}
