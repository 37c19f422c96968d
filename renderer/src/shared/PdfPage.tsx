/**
 * One page: a box of the page's visible size (from the signer view, so fields can be placed before pdf.js has
 * drawn anything), the drawing, and the field overlays on top. The drawing is made off screen and copied in
 * when done, so zooming never shows a blank page.
 */
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useI18n } from '../i18n/i18n';
import type { PDFDocumentProxy } from '../pdf/load-pdf';
import type { RenderQueue } from '../pdf/render-queue';
import type { PageSize } from '../types';

interface Props {
  pageKey: string;
  index: number;
  label: string;
  size: PageSize;
  scale: number;
  pdf: PDFDocumentProxy | null;
  render: typeof import('../pdf/load-pdf').renderPage | null;
  renderText: typeof import('../pdf/load-pdf').renderTextLayer | null;
  queue: RenderQueue;
  onRendered: (pageKey: string) => void;
  children?: ReactNode;
}

export function PdfPage({
  pageKey,
  index,
  label,
  size,
  scale,
  pdf,
  render,
  renderText,
  queue,
  onRendered,
  children,
}: Props) {
  const { t } = useI18n();
  const canvas = useRef<HTMLCanvasElement>(null);
  const text = useRef<HTMLDivElement>(null);
  const textQueued = useRef(false);
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    text.current?.style.setProperty('--total-scale-factor', String(scale));
  }, [scale]);

  useEffect(() => {
    if (!pdf || !render) return;
    let cancelled = false;
    let task: { cancel(): void } | null = null;
    queue.add({
      key: pageKey,
      run: async () => {
        if (cancelled) return;
        try {
          const page = await pdf.getPage(size.page_number);
          if (cancelled) return;
          const offscreen = document.createElement('canvas');
          const job = render(page, offscreen, scale);
          task = job;
          await job.promise;
          const target = canvas.current;
          if (cancelled || !target) return;
          target.width = offscreen.width;
          target.height = offscreen.height;
          target.getContext('2d')!.drawImage(offscreen, 0, 0);
          target.dataset.renderedScale = String(scale);
          setFailed(false);
          onRendered(pageKey);
          // The text layer waits behind every page's drawing: it is for reading, the drawing is for seeing.
          if (renderText && !textQueued.current) {
            textQueued.current = true;
            queue.add({
              key: `${pageKey}:text`,
              run: () => (text.current ? renderText(page, text.current, scale) : Promise.resolve()),
            });
          }
        } catch (error) {
          if (!cancelled && (error as { name?: string }).name !== 'RenderingCancelledException') setFailed(true);
        }
      },
    });
    return () => {
      cancelled = true;
      queue.remove(pageKey);
      task?.cancel();
    };
  }, [pdf, render, renderText, scale, pageKey, size.page_number, queue, onRendered]);

  useEffect(() => () => queue.remove(`${pageKey}:text`), [queue, pageKey]);

  return (
    <section
      className="page"
      id={`page-${index}`}
      data-page-key={pageKey}
      data-scale={scale}
      aria-label={label}
      style={{ width: `${size.width * scale}px`, height: `${size.height * scale}px` }}
    >
      <canvas ref={canvas} className="page-canvas" aria-hidden="true" />
      <div ref={text} className="textLayer" />
      {failed && <p className="page-error">{t('doc.loadFailed')}</p>}
      {children}
    </section>
  );
}
