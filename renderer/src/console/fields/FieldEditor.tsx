/**
 * The field editor, shared by compose and template editing: a document's pages drawn by pdf.js with the
 * fields over them, a palette to drag (or click) new fields from, a party picker with each party's colour,
 * and the selected field's properties. It owns no data: every change is handed to onChange as the whole list.
 * Problems show on the field they concern: the caller's (the server's 422 invalid_field_layout, mapped to
 * field ids) first, else the cheap rules checked here as you place.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { RenderQueue } from '../../pdf/render-queue';
import { PdfPage } from '../../shared/PdfPage';
import { useT } from '../i18n';
import { defaultSize, holdsFields, localProblems, partyColour, unavailableFor } from './field-kinds';
import { FieldBox } from './FieldBox';
import { centredAt, placeAt } from './geometry';
import { Palette, typeKey } from './Palette';
import { PartyPicker } from './PartyPicker';
import { PropertiesPanel } from './PropertiesPanel';
import type { EditorDocument, EditorField, EditorParty } from './types';
import { usePdf } from './use-pdf';
import './field-editor.css';

export type { EditorDocument, EditorField, EditorParty } from './types';

export interface FieldEditorProps {
  document: EditorDocument;
  parties: EditorParty[];
  fields: EditorField[];
  onChange(fields: EditorField[]): void;
  /** field id -> message (e.g. the server's layout errors mapped back onto fields). */
  errors?: ReadonlyMap<string, string>;
  showFieldKey?: boolean;
  /** Names of the PDF's empty signature fields (the API's document.signature_fields that are not signed). */
  emptySignatureFields?: string[];
}

let counter = 0;
function newId(): string {
  counter += 1;
  return typeof crypto.randomUUID === 'function' ? crypto.randomUUID() : `new-${Date.now()}-${counter}`;
}

export function FieldEditor({
  document: doc,
  parties,
  fields,
  onChange,
  errors,
  showFieldKey = false,
  emptySignatureFields = [],
}: FieldEditorProps) {
  const { t } = useT();
  const { lib, pdf, pages, failed } = usePdf(doc);
  const queue = useMemo(() => new RenderQueue(), []);
  const pagesArea = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(800);
  const [selected, setSelected] = useState<string | null>(null);
  const [focusNext, setFocusNext] = useState<string | null>(null);
  const eligible = useMemo(() => parties.filter(holdsFields), [parties]);
  const [activeKey, setActiveKey] = useState<string | undefined>(eligible[0]?.key);
  const [preview, setPreview] = useState('');
  const [currentPage, setCurrentPage] = useState(1);

  const active = eligible.find((p) => p.key === activeKey) ?? eligible[0];
  const colourOf = useCallback((key: string) => partyColour(parties.findIndex((p) => p.key === key)), [parties]);
  const maxWidth = pages ? Math.max(...pages.map((p) => p.width)) : 612;
  const scale = Math.min(1.5, Math.max(0.4, (width - 24) / maxWidth));

  useEffect(() => {
    const element = pagesArea.current;
    if (!element) return;
    const observer = new ResizeObserver(() => setWidth(element.clientWidth));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  // The page taking most of the view is the current one: "Add" puts new fields there.
  useEffect(() => {
    const element = pagesArea.current;
    if (!element || !pages) return;
    const shown = new Map<number, number>();
    const observer = new IntersectionObserver(
      (entries) => {
        for (const entry of entries) {
          shown.set(
            Number((entry.target as HTMLElement).dataset.pageNumber),
            entry.isIntersecting ? entry.intersectionRect.height : 0,
          );
        }
        let best = 0;
        let bestHeight = 0;
        for (const [n, h] of shown) if (h > bestHeight) [best, bestHeight] = [n, h];
        if (best > 0) setCurrentPage(best);
      },
      { root: element, threshold: [0, 0.25, 0.5, 0.75, 1] },
    );
    element.querySelectorAll('[data-page-number]').forEach((page) => observer.observe(page));
    return () => observer.disconnect();
  }, [pages, scale]);

  useEffect(() => {
    if (!focusNext) return;
    pagesArea.current?.querySelector<HTMLElement>(`[data-field-id="${CSS.escape(focusNext)}"]`)?.focus();
    setFocusNext(null);
  }, [focusNext, fields]);

  const problems = useMemo(() => {
    const local = localProblems(fields, parties);
    const out = new Map<string, string>();
    for (const f of fields) {
      const text = errors?.get(f.id) ?? (local.has(f.id) ? t(`compose.fields.problem.${local.get(f.id)!}`) : undefined);
      if (text) out.set(f.id, text);
    }
    return out;
  }, [fields, parties, errors, t]);

  const update = useCallback(
    (next: EditorField) => onChange(fields.map((f) => (f.id === next.id ? next : f))),
    [fields, onChange],
  );
  const remove = useCallback(
    (id: string) => {
      onChange(fields.filter((f) => f.id !== id));
      setSelected(null);
      pagesArea.current?.focus();
    },
    [fields, onChange],
  );

  const add = useCallback(
    (type: number, place: (field: EditorField) => EditorField) => {
      if (!active || !pages || unavailableFor(type, active)) return;
      const base: EditorField = {
        id: newId(),
        party: active.key,
        field_type: type,
        page_number: currentPage,
        x: 0,
        y: 0,
        ...defaultSize(type),
      };
      if (type === 12 || type === 13) {
        base.options = [t('compose.fields.option', { n: 1 }), t('compose.fields.option', { n: 2 })];
      }
      const field = place(base);
      onChange([...fields, field]);
      setSelected(field.id);
      setFocusNext(field.id);
    },
    [active, pages, currentPage, fields, onChange, t],
  );

  const addOnCurrentPage = useCallback(
    (type: number) => {
      // Cascade keyboard-added fields so they do not hide each other.
      const offset = 36 + (fields.filter((f) => f.page_number === currentPage).length % 10) * 14;
      add(type, (f) => placeAt(f, offset, offset, pages![currentPage - 1]!));
    },
    [add, fields, currentPage, pages],
  );

  const dropAt = useCallback(
    (type: number, clientX: number, clientY: number) => {
      const target = document
        .elementsFromPoint(clientX, clientY)
        .find((e) => e instanceof HTMLElement && e.dataset.pageNumber && pagesArea.current?.contains(e)) as
        HTMLElement | undefined;
      if (!target || !pages) return;
      const n = Number(target.dataset.pageNumber);
      // The page itself, not its row: a page narrower than the widest one is centred in its row.
      const rect = (target.querySelector('.page') ?? target).getBoundingClientRect();
      add(type, (f) =>
        centredAt({ ...f, page_number: n }, (clientX - rect.left) / scale, (clientY - rect.top) / scale, pages[n - 1]!),
      );
    },
    [add, pages, scale],
  );

  const onRendered = useCallback(() => undefined, []);
  const selectedField = fields.find((f) => f.id === selected);
  const visible = preview ? fields.filter((f) => f.party === preview) : fields;
  const partyLabel = (key: string) => parties.find((p) => p.key === key)?.label ?? t('compose.fields.noParty');

  return (
    <div className="field-editor">
      <div className="field-editor-tools">
        <PartyPicker parties={eligible} activeKey={active?.key} colourOf={colourOf} onPick={setActiveKey} />
        <label className="inline-field">
          {t('compose.fields.preview')}
          <select value={preview} onChange={(e) => setPreview(e.target.value)}>
            <option value="">{t('compose.fields.preview.all')}</option>
            {eligible.map((p) => (
              <option key={p.key} value={p.key}>
                {p.label}
              </option>
            ))}
          </select>
        </label>
        {pages && (
          <span className="muted" aria-live="polite">
            {t('compose.fields.currentPage', { page: currentPage, pages: pages.length })}
          </span>
        )}
      </div>
      {eligible.length === 0 && <p className="notice">{t('compose.fields.noParties')}</p>}
      <div className="field-editor-body">
        <Palette
          party={active}
          colour={active ? colourOf(active.key) : '#777'}
          onAdd={addOnCurrentPage}
          onDrop={dropAt}
        />
        <div
          className="editor-pages"
          ref={pagesArea}
          tabIndex={-1}
          aria-label={t('compose.fields.pagesOf', { name: doc.name })}
        >
          {failed && (
            <p className="notice notice-error" role="alert">
              {t('compose.fields.loadFailed')}
            </p>
          )}
          {!pages && !failed && <p className="muted">{t('console.loading')}</p>}
          {pages?.map((box, i) => {
            const n = i + 1;
            return (
              <div key={n} className="editor-page" data-page-number={n}>
                <PdfPage
                  pageKey={`${doc.id}:${n}`}
                  index={n}
                  label={t('compose.fields.pageLabel', { page: n, pages: pages.length, name: doc.name })}
                  size={{ page_number: n, width: box.width, height: box.height, rotate: 0 }}
                  scale={scale}
                  pdf={pdf}
                  render={lib?.renderPage ?? null}
                  renderText={null}
                  queue={queue}
                  onRendered={onRendered}
                >
                  <div className="editor-page-backdrop" onPointerDown={() => setSelected(null)} />
                  {visible
                    .filter((f) => f.page_number === n)
                    .map((f) => (
                      <FieldBox
                        key={f.id}
                        field={f}
                        page={box}
                        scale={scale}
                        colour={colourOf(f.party)}
                        caption={`${f.label || t(typeKey(f.field_type))}${f.pdf_signature_field ? ` → ${f.pdf_signature_field}` : ''} · ${partyLabel(f.party)}`}
                        description={t('compose.fields.describe', {
                          type: t(typeKey(f.field_type)),
                          label: f.label ?? '',
                          party: partyLabel(f.party),
                          page: n,
                        })}
                        selected={f.id === selected}
                        problem={problems.get(f.id)}
                        problemId={`problem-${f.id}`}
                        onSelect={setSelected}
                        onChange={update}
                        onRemove={remove}
                      />
                    ))}
                </PdfPage>
              </div>
            );
          })}
        </div>
        <aside className="field-editor-side" aria-label={t('compose.fields.sidebar')}>
          {selectedField && pages ? (
            <PropertiesPanel
              field={selectedField}
              parties={parties}
              pages={pages}
              problem={problems.get(selectedField.id)}
              showFieldKey={showFieldKey}
              emptySignatureFields={emptySignatureFields}
              onChange={update}
              onRemove={remove}
            />
          ) : (
            <div className="muted">
              <p>{t('compose.fields.noneSelected')}</p>
              <p className="small-print">{t('compose.fields.keyboardHelp')}</p>
            </div>
          )}
          <p className="muted small-print" role="status">
            {t('compose.fields.count', { count: fields.length })}
            {problems.size > 0 ? ` · ${t('compose.fields.problemCount', { count: problems.size })}` : ''}
          </p>
        </aside>
      </div>
    </div>
  );
}
