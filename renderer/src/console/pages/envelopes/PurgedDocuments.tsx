/**
 * A purged envelope's documents card: the retention policy deleted the PDFs, so instead of download buttons it
 * says what remains: the audit trail (the timeline below), each document's SHA-256 as uploaded and as signed, and
 * the certificate of completion (a separate PDF made from the audit trail, still downloadable).
 */
import type { ReactNode } from 'react';
import { useT } from '../../i18n';
import type { Envelope } from './types';

export function PurgedDocuments({ envelope, certificate }: { envelope: Envelope; certificate: ReactNode }) {
  const { t, formatDate } = useT();
  return (
    <section className="card env-purged" aria-labelledby="documents-title">
      <h2 id="documents-title">{t('retention.purged.title')}</h2>
      <p className="notice">{t('retention.purged.notice', { date: formatDate(envelope.purged_at) })}</p>
      <ul className="env-remains">
        <li>{t('retention.purged.trail')}</li>
        <li>
          {t('retention.purged.hashes')}
          <ul className="env-document-list">
            {envelope.documents.map((document) => (
              <li key={document.document_id} className="env-document-item">
                <strong>{document.filename}</strong>
                <dl className="env-hashes">
                  <div>
                    <dt>{t('retention.purged.uploaded')}</dt>
                    <dd>
                      <code>{document.sha256}</code>
                    </dd>
                  </div>
                  {document.final_sha256 && (
                    <div>
                      <dt>{t('retention.purged.signed')}</dt>
                      <dd>
                        <code>{document.final_sha256}</code>
                      </dd>
                    </div>
                  )}
                </dl>
              </li>
            ))}
          </ul>
        </li>
        <li>
          {envelope.status === 'completed' ? t('retention.purged.certificate') : t('retention.purged.noCertificate')}
        </li>
      </ul>
      {envelope.status === 'completed' && <div className="form-actions">{certificate}</div>}
    </section>
  );
}
