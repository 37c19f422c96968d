/**
 * pdf.js, loaded on demand (the link-state pages never need it). The worker is its own hashed asset, started
 * as soon as this module loads so its (large) script is parsed while the page fetches the signer view and
 * the document; one worker serves every document of the envelope. Eval is off so the page's CSP needs no
 * 'unsafe-eval'.
 */
import {
  AnnotationMode,
  getDocument,
  GlobalWorkerOptions,
  PDFWorker,
  TextLayer,
  version,
  type PDFDocumentProxy,
  type PDFPageProxy,
} from 'pdfjs-dist';
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';

GlobalWorkerOptions.workerSrc = workerUrl;
const worker = new PDFWorker();
/** Decoders (JPEG 2000, JBIG2, ICC) and standard fonts, fetched when a document needs them (see vite.config.ts). */
const RESOURCES = new URL(`${import.meta.env.BASE_URL}assets/pdfjs-${version}/`, window.location.href).href;

export type { PDFDocumentProxy, PDFPageProxy };

export async function openPdf(bytes: Uint8Array): Promise<PDFDocumentProxy> {
  return getDocument({
    data: bytes,
    worker,
    wasmUrl: RESOURCES,
    standardFontDataUrl: RESOURCES,
    isEvalSupported: false,
    enableXfa: false,
    stopAtErrors: false,
  }).promise;
}

/**
 * Draws a page at `scale` CSS pixels per PDF point into the canvas, sharp on high-density screens. Annotations
 * are drawn too (AnnotationMode.ENABLE): earlier signatures and filled form fields show as the PDF has them.
 */
export function renderPage(
  page: PDFPageProxy,
  canvas: HTMLCanvasElement,
  scale: number,
): { promise: Promise<void>; cancel(): void } {
  const ratio = Math.min(window.devicePixelRatio || 1, 3);
  const viewport = page.getViewport({ scale: scale * ratio });
  canvas.width = Math.floor(viewport.width);
  canvas.height = Math.floor(viewport.height);
  const task = page.render({ canvas, viewport, annotationMode: AnnotationMode.ENABLE });
  return { promise: task.promise, cancel: () => task.cancel() };
}

/**
 * The page's text as invisible, positioned spans over the drawing (pdf.js's text layer): what screen readers
 * read, and what selection and find-in-page use. Laid out once; zooming only changes --total-scale-factor.
 */
export async function renderTextLayer(page: PDFPageProxy, container: HTMLDivElement, scale: number): Promise<void> {
  container.replaceChildren();
  container.style.setProperty('--total-scale-factor', String(scale));
  await new TextLayer({
    textContentSource: page.streamTextContent(),
    container,
    viewport: page.getViewport({ scale }),
  }).render();
}
