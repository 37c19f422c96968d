/** Zoom, page navigation and the field guidance, kept at the top while the document scrolls. */
import { useEffect, useState, type ReactNode } from 'react';
import { useI18n } from '../i18n/i18n';
import type { Zoom } from './use-zoom';

interface Props {
  zoom: Zoom;
  page: number;
  pages: number;
  onGoToPage: (page: number) => void;
  children?: ReactNode;
}

export function Toolbar({ zoom, page, pages, onGoToPage, children }: Props) {
  const { t } = useI18n();
  const [typed, setTyped] = useState(String(page));
  useEffect(() => setTyped(String(page)), [page]);
  const go = (target: number) => onGoToPage(Math.min(pages, Math.max(1, target)));
  return (
    <div className="toolbar" role="toolbar" aria-label={t('toolbar.label')}>
      <div className="tool-group">
        <button
          type="button"
          className="icon-button"
          onClick={zoom.zoomOut}
          aria-label={t('toolbar.zoomOut')}
          title={t('toolbar.zoomOut')}
        >
          −
        </button>
        <output className="zoom-value" aria-live="polite" aria-label={t('toolbar.zoom', { percent: zoom.percent })}>
          {zoom.percent}%
        </output>
        <button
          type="button"
          className="icon-button"
          onClick={zoom.zoomIn}
          aria-label={t('toolbar.zoomIn')}
          title={t('toolbar.zoomIn')}
        >
          +
        </button>
        <button
          type="button"
          className="button small fit"
          onClick={zoom.fitWidth}
          aria-label={t('toolbar.fit')}
          title={t('toolbar.fit')}
        >
          <span aria-hidden="true" className="fit-icon">
            ↔
          </span>
          <span aria-hidden="true" className="fit-label">
            {t('toolbar.fit')}
          </span>
        </button>
      </div>
      <div className="tool-group">
        <button
          type="button"
          className="icon-button"
          onClick={() => go(page - 1)}
          disabled={page <= 1}
          aria-label={t('toolbar.prev')}
          title={t('toolbar.prev')}
        >
          ‹
        </button>
        <label className="page-input">
          <span className="page-label">{t('toolbar.page')}</span>
          <input
            type="text"
            inputMode="numeric"
            value={typed}
            size={3}
            onChange={(e) => setTyped(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && /^\d+$/.test(typed)) go(Number(typed));
            }}
            onBlur={() => setTyped(String(page))}
          />
          <span>{t('toolbar.of', { pages })}</span>
        </label>
        <button
          type="button"
          className="icon-button"
          onClick={() => go(page + 1)}
          disabled={page >= pages}
          aria-label={t('toolbar.next')}
          title={t('toolbar.next')}
        >
          ›
        </button>
      </div>
      {children}
    </div>
  );
}
