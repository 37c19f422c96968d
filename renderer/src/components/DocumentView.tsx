/**
 * All pages of all documents, one under the other, with this recipient's fields (and others' filled values)
 * over them. Page boxes and fields come from the signer view at once; pdf.js (loaded on demand) draws the
 * pages, visible ones first.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { SignerApi } from '../api';
import { useI18n } from '../i18n/i18n';
import type { PDFDocumentProxy } from '../pdf/load-pdf';
import { pdfModule, type PdfModule } from '../pdf/pdf-module';
import { RenderQueue } from '../pdf/render-queue';
import { MARKS, markOnce } from '../perf';
import type { AdoptedSignature, FieldValue, SignerField, SignerView } from '../types';
import { FieldOverlay } from './FieldOverlay';
import { PdfPage } from '../shared/PdfPage';

interface Props {
  view: SignerView;
  api: SignerApi;
  scale: number;
  /** The scale is final (the width is measured): pages may be drawn. */
  measured: boolean;
  fields: readonly SignerField[];
  values: Readonly<Record<string, FieldValue>>;
  onChange: (fieldId: string, value: FieldValue) => void;
  signature: AdoptedSignature | null;
  onOpenSignature: () => void;
  initials: AdoptedSignature | null;
  onOpenInitials: () => void;
  tokenSignature: boolean;
  flagged: ReadonlySet<string>;
  onAvailableWidth: (width: number) => void;
  onCurrentPage: (index: number) => void;
}

const today = () => new Date().toISOString().slice(0, 10);

export function DocumentView(props: Props) {
  const { view, api, scale, onAvailableWidth, onCurrentPage } = props;
  const { t } = useI18n();
  const container = useRef<HTMLDivElement>(null);
  const queue = useMemo(() => new RenderQueue(), []);
  const [pdfLib, setPdfLib] = useState<PdfModule | null>(null);
  const [pdfs, setPdfs] = useState<Record<string, PDFDocumentProxy>>({});
  const [loadError, setLoadError] = useState(false);

  useEffect(() => {
    let live = true;
    const opened: PDFDocumentProxy[] = [];
    void (async () => {
      const module = pdfModule();
      const bytes = view.documents.map((d) => api.documentBytes(d.document_id)); // fetched while pdf.js loads
      void module.then((m) => {
        markOnce(MARKS.pdfjsLoaded);
        if (live) setPdfLib(m);
      });
      await Promise.all(
        view.documents.map(async (d, i) => {
          const pdf = await (await module).openPdf(await bytes[i]!);
          markOnce(MARKS.documentOpened);
          opened.push(pdf);
          if (live) setPdfs((prev) => ({ ...prev, [d.document_id]: pdf }));
        }),
      );
    })().catch(() => {
      // The fields stay usable; the signer is told the pages cannot be shown (and can reload).
      if (live) setLoadError(true);
    });
    return () => {
      live = false;
      for (const pdf of opened) void pdf.destroy();
    };
  }, [view.documents, api]);

  const pages = useMemo(
    () =>
      view.documents.flatMap((d) =>
        d.pages.map((p) => ({ document: d, size: p, key: `${d.document_id}:${p.page_number}` })),
      ),
    [view.documents],
  );

  // Fields are interactive once each page that holds one of them is drawn (first page when there are none).
  const needed = useMemo(() => {
    const keys = new Set(props.fields.map((f) => `${f.document_id}:${f.page_number}`));
    if (keys.size === 0 && pages[0]) keys.add(pages[0].key);
    return keys;
  }, [props.fields, pages]);
  const drawn = useRef(new Set<string>());
  const onRendered = useCallback(
    (key: string) => {
      markOnce(MARKS.firstPage);
      drawn.current.add(key);
      if ([...needed].every((k) => drawn.current.has(k))) markOnce(MARKS.fieldsInteractive);
    },
    [needed],
  );

  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const observer = new ResizeObserver(() => onAvailableWidth(element.clientWidth - 24));
    observer.observe(element);
    return () => observer.disconnect();
  }, [onAvailableWidth]);

  // The page taking most of the screen's height is the current one; pages coming into view are drawn first.
  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const shown = new Map<number, number>();
    const observer = new IntersectionObserver(
      (entries) => {
        for (const entry of entries) {
          const index = Number((entry.target as HTMLElement).id.slice('page-'.length));
          shown.set(index, entry.isIntersecting ? entry.intersectionRect.height : 0);
          if (entry.isIntersecting) queue.hurry((entry.target as HTMLElement).dataset.pageKey ?? '');
        }
        let best = 0;
        let bestHeight = 0;
        for (const [index, height] of shown) if (height > bestHeight) [best, bestHeight] = [index, height];
        if (best > 0) onCurrentPage(best);
      },
      { threshold: [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1] },
    );
    element.querySelectorAll('.page').forEach((page) => observer.observe(page));
    return () => observer.disconnect();
  }, [pages, queue, onCurrentPage]);

  const date = today();
  return (
    <div className="document" id="document" ref={container} tabIndex={-1}>
      {loadError && (
        <p role="alert" className="load-error">
          {t('doc.loadFailed')}
        </p>
      )}
      {pages.map(({ document, size, key }, i) => {
        const here = (f: SignerField) => f.document_id === document.document_id && f.page_number === size.page_number;
        return (
          <PdfPage
            key={key}
            pageKey={key}
            index={i + 1}
            label={t('doc.page', { page: size.page_number, pages: document.pages.length, filename: document.filename })}
            size={size}
            scale={scale}
            pdf={props.measured ? (pdfs[document.document_id] ?? null) : null}
            render={pdfLib?.renderPage ?? null}
            renderText={pdfLib?.renderTextLayer ?? null}
            queue={queue}
            onRendered={onRendered}
          >
            {view.other_fields.filter(here).map((f) => (
              <FieldOverlay
                key={f.field_id}
                field={f}
                owner="other"
                scale={scale}
                recipient={view.recipient}
                today={date}
                value={undefined}
                onChange={props.onChange}
                signature={null}
                onOpenSignature={props.onOpenSignature}
                initials={null}
                onOpenInitials={props.onOpenInitials}
                tokenSignature={false}
                flagged={false}
              />
            ))}
            {props.fields.filter(here).map((f) => (
              <FieldOverlay
                key={f.field_id}
                field={f}
                owner="me"
                scale={scale}
                recipient={view.recipient}
                today={date}
                value={props.values[f.field_id]}
                onChange={props.onChange}
                signature={props.signature}
                onOpenSignature={props.onOpenSignature}
                initials={props.initials}
                onOpenInitials={props.onOpenInitials}
                tokenSignature={props.tokenSignature}
                flagged={props.flagged.has(f.field_id)}
              />
            ))}
          </PdfPage>
        );
      })}
    </div>
  );
}
