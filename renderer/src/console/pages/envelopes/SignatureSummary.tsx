/**
 * The signatures in a document as our verifier sees them (GET …/documents/{document_id}/signatures): who
 * signed, with which certificate, at which PAdES level, and whether it holds. The answer is read loosely:
 * what is present is shown, what is absent is left out.
 */
import { api, ApiError } from '../../api';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useT } from '../../i18n';
import { useResource } from '../../use-resource';

type Loose = Record<string, unknown>;

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

function pick(item: Loose, ...paths: string[]): string | null {
  for (const path of paths) {
    let value: unknown = item;
    for (const part of path.split('.')) value = value && typeof value === 'object' ? (value as Loose)[part] : undefined;
    if (text(value)) return text(value);
  }
  return null;
}

function signaturesOf(answer: unknown): Loose[] {
  if (Array.isArray(answer)) return answer as Loose[];
  const list = answer && typeof answer === 'object' ? (answer as Loose).signatures : undefined;
  return Array.isArray(list) ? (list as Loose[]) : [];
}

function SignatureItem({ item }: { item: Loose }) {
  const { t, formatDate } = useT();
  const signer = pick(item, 'signer.name', 'signer_name', 'name', 'signer.subject', 'subject');
  const certificate = pick(item, 'certificate.subject', 'signer.subject', 'subject');
  const issuer = pick(item, 'certificate.issuer', 'signer.issuer', 'issuer');
  const level = pick(item, 'pades_level', 'padesLevel', 'level');
  const time = pick(item, 'signing_time', 'signed_at', 'signingTime', 'timestamp.gen_time');
  const valid = typeof item.valid === 'boolean' ? item.valid : null;
  const problems = Array.isArray(item.problems) ? item.problems.filter((p): p is string => typeof p === 'string') : [];
  return (
    <li className="signature-item">
      <strong>{signer ?? t('envelopes.signatures.unnamed')}</strong>
      {valid !== null && <span className={`badge ${valid ? 'tone-success' : 'tone-danger'}`}>{valid ? t('envelopes.signatures.valid') : t('envelopes.signatures.invalid')}</span>}
      {level && <span className="badge tone-info">PAdES {level}</span>}
      <dl className="facts small">
        {certificate && certificate !== signer && <><dt>{t('envelopes.signatures.certificate')}</dt><dd>{certificate}</dd></>}
        {issuer && <><dt>{t('envelopes.signatures.issuer')}</dt><dd>{issuer}</dd></>}
        {time && <><dt>{t('envelopes.signatures.time')}</dt><dd>{formatDate(time)}</dd></>}
      </dl>
      {problems.length > 0 && <ul className="field-error">{problems.map((p) => <li key={p}>{p}</li>)}</ul>}
    </li>
  );
}

export function SignatureSummary({ envelopeId, documentId }: { envelopeId: string; documentId: string }) {
  const { t } = useT();
  const summary = useResource((signal) => api<unknown>('GET', `/envelopes/${envelopeId}/documents/${documentId}/signatures`, { signal }), [envelopeId, documentId]);
  if (summary.error instanceof ApiError && summary.error.code === 'route_not_found') {
    return <p className="muted small">{t('envelopes.signatures.unavailable')}</p>;
  }
  if (summary.error) return <ErrorNotice error={summary.error} onRetry={summary.reload} />;
  if (summary.loading && !summary.data) return <p className="muted small">{t('console.loading')}</p>;
  const items = signaturesOf(summary.data);
  const level = pick((summary.data ?? {}) as Loose, 'pades_level');
  return (
    <div className="signature-summary">
      <h3>{t('envelopes.signatures.title')}</h3>
      {level && <p className="small">{t('envelopes.signatures.level', { level })}</p>}
      {items.length === 0 ? <p className="muted small">{t('envelopes.signatures.none')}</p> : (
        <ul className="signature-list">{items.map((item, i) => <SignatureItem key={i} item={item} />)}</ul>
      )}
    </div>
  );
}
