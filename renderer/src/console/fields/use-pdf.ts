/**
 * Opens the editor's document with the signing page's pdf.js code (loaded on demand) and reads each page's
 * visible size from pdf.js's viewport at scale 1: the CropBox after /Rotate, the same box the API's
 * coordinates and pages[] use, so field x/y map to the drawing as left = x × scale.
 */
import { useEffect, useState } from 'react';
import type { PDFDocumentProxy } from '../../pdf/load-pdf';
import { pdfModule, type PdfModule } from '../../pdf/pdf-module';
import type { EditorDocument, PageBox } from './types';

export interface OpenedPdf {
  lib: PdfModule | null;
  pdf: PDFDocumentProxy | null;
  pages: readonly PageBox[] | null;
  failed: boolean;
}

async function pageBoxes(pdf: PDFDocumentProxy): Promise<PageBox[]> {
  const boxes: PageBox[] = [];
  for (let n = 1; n <= pdf.numPages; n++) {
    const viewport = (await pdf.getPage(n)).getViewport({ scale: 1 });
    boxes.push({ width: viewport.width, height: viewport.height });
  }
  return boxes;
}

export function usePdf(document: EditorDocument): OpenedPdf {
  const [state, setState] = useState<OpenedPdf>({ lib: null, pdf: null, pages: document.pages ?? null, failed: false });
  useEffect(() => {
    let live = true;
    let opened: PDFDocumentProxy | null = null;
    setState({ lib: null, pdf: null, pages: document.pages ?? null, failed: false });
    void (async () => {
      const bytes = document.load(); // fetched while pdf.js loads
      const lib = await pdfModule();
      const pdf = await lib.openPdf(await bytes);
      opened = pdf;
      const pages = document.pages ?? (await pageBoxes(pdf));
      if (live) setState({ lib, pdf, pages, failed: false });
    })().catch(() => {
      if (live) setState((previous) => ({ ...previous, failed: true }));
    });
    return () => {
      live = false;
      void opened?.destroy();
    };
    // A new document object for the same id (a parent re-render) must not reopen the file.
  }, [document.id]);
  return state;
}
