/**
 * The envelope's documents: the signed PDF and the certificate of completion once the envelope is
 * completed (before that, why not yet), and what our verifier finds in each document's signatures.
 */
import { useState } from 'react';
import { download } from '../../api';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useT } from '../../i18n';
import { PurgedDocuments } from './PurgedDocuments';
import { SignatureSummary } from './SignatureSummary';
import type { Envelope } from './types';

function DownloadButton({ path, name, label }: { path: string; name: string; label: string }) {
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const run = () => {
    setBusy(true);
    setError(undefined);
    download(path, name)
      .catch(setError)
      .finally(() => setBusy(false));
  };
  return (
    <>
      <button type="button" className="button small" onClick={run} disabled={busy}>
        {label}
      </button>
      <ErrorNotice error={error} />
    </>
  );
}

export function DocumentsCard({ envelope }: { envelope: Envelope }) {
  const { t } = useT();
  const completed = envelope.status === 'completed';
  const certificate = (
    <DownloadButton
      path={`/envelopes/${envelope.id}/audit-trail/certificate`}
      name={`certificate-of-completion-${envelope.id}.pdf`}
      label={t('envelopes.documents.certificate')}
    />
  );
  // Deleted by the retention policy: what remains instead of download buttons (every download would be 410).
  if (envelope.purged_at) return <PurgedDocuments envelope={envelope} certificate={certificate} />;
  return (
    <section className="card" aria-labelledby="documents-title">
      <h2 id="documents-title">{t('envelopes.documents.title')}</h2>
      {!completed && (
        <p className="muted small">
          {t(
            envelope.status === 'sent' || envelope.status === 'draft'
              ? 'envelopes.documents.notYet'
              : 'envelopes.documents.never',
          )}
        </p>
      )}
      {envelope.documents.length === 0 && <p className="muted">{t('envelopes.documents.none')}</p>}
      <ul className="env-document-list">
        {envelope.documents.map((document) => (
          <li key={document.document_id} className="env-document-item">
            <div className="env-document-head">
              <strong>{document.filename}</strong>
              {document.page_count !== undefined && (
                <span className="muted small">{t('envelopes.documents.pages', { count: document.page_count })}</span>
              )}
              {completed && (
                <DownloadButton
                  path={`/envelopes/${envelope.id}/documents/${document.document_id}/download`}
                  name={document.filename}
                  label={t('envelopes.documents.download')}
                />
              )}
            </div>
            {envelope.status !== 'draft' && (
              <SignatureSummary
                envelopeId={envelope.id}
                documentId={document.document_id}
                recipients={envelope.recipients}
              />
            )}
          </li>
        ))}
      </ul>
      {completed && <div className="form-actions">{certificate}</div>}
    </section>
  );
}
