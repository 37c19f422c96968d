/**
 * The draft's PDFs: drop files on the zone or choose them; each upload's progress, and a refused file's
 * reason in words (not a PDF, encrypted, too large…) with the server's detail beneath. Remove a document from
 * the draft.
 */
import { useId, useState, type DragEvent } from 'react';
import { RefusalLines } from '../../components/ErrorNotice';
import { useT } from '../../i18n';
import type { DocumentView } from './compose-api';

export interface UploadState {
  /** The file being uploaded now and its place in the batch. */
  current: { name: string; n: number; of: number } | null;
  failures: { name: string; error: unknown }[];
}

interface Props {
  documents: readonly DocumentView[];
  upload: UploadState;
  busy: boolean;
  onFiles(files: File[]): void;
  onRemove(documentId: string): void;
}

export function DocumentsCard({ documents, upload, busy, onFiles, onRemove }: Props) {
  const { t } = useT();
  const id = useId();
  const [over, setOver] = useState(false);

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setOver(false);
    const files = [...event.dataTransfer.files];
    if (files.length > 0) onFiles(files);
  };

  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{t('compose.documents.title')}</h2>
      {documents.length > 0 && (
        <ul className="document-list">
          {documents.map((d) => (
            <li key={d.document_id}>
              <span>
                <strong>{d.filename}</strong>{' '}
                <span className="muted">{t('compose.documents.pages', { count: d.page_count })}</span>
              </span>
              <button
                type="button"
                className="button small danger"
                disabled={busy}
                onClick={() => onRemove(d.document_id)}
                aria-label={t('compose.documents.remove', { name: d.filename })}
              >
                {t('compose.remove')}
              </button>
            </li>
          ))}
        </ul>
      )}
      <div
        className={`drop-zone${over ? ' over' : ''}`}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={onDrop}
      >
        <p>{documents.length === 0 ? t('compose.documents.empty') : t('compose.documents.more')}</p>
        <label htmlFor={`${id}-file`} className="button primary">
          {t('compose.documents.choose')}
        </label>
        <input
          id={`${id}-file`}
          className="visually-hidden"
          type="file"
          accept="application/pdf,.pdf"
          multiple
          disabled={busy}
          onChange={(e) => {
            const files = [...(e.target.files ?? [])];
            e.target.value = '';
            if (files.length > 0) onFiles(files);
          }}
        />
      </div>
      <div aria-live="polite">
        {upload.current && (
          <p className="upload-progress">
            {t('compose.documents.uploading', {
              name: upload.current.name,
              n: upload.current.n,
              of: upload.current.of,
            })}
            <progress className="progress" />
          </p>
        )}
      </div>
      {upload.failures.length > 0 && (
        <div className="notice notice-error" role="alert">
          {upload.failures.map((f, i) => (
            <p key={i}>
              {t('compose.documents.refused', { name: f.name })} <RefusalLines error={f.error} />
            </p>
          ))}
        </div>
      )}
    </section>
  );
}
