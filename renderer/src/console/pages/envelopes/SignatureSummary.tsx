/**
 * The signatures in a document as our verifier sees them (GET …/documents/{document_id}/signatures): who
 * signed, with which certificate, at which PAdES level, whether it holds and whether we trust it.
 */
import { api } from '../../api';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useT } from '../../i18n';
import type { ConsoleStringKey } from '../../strings';
import { useResource } from '../../use-resource';
import type { RecipientSummary } from './types';

interface Signature {
  index: number;
  field: string;
  kind: 'signature' | 'document_timestamp';
  signer_name: string | null;
  name: string | null;
  certificate: { subject: string; issuer: string; not_before: string; not_after: string } | null;
  signing_time: string | null;
  timestamp: { time: string; valid: boolean } | null;
  pades_level: string | null;
  certification: { docmdp: number; allows: string } | null;
  field_lock: FieldLock | null;
  valid: boolean;
  problems: string[];
  recipient_id: string | null;
  trust: { status: string; reason: string | null } | null;
}

interface FieldLock {
  action: 'All' | 'Include' | 'Exclude';
  fields: string[];
  changed: string[];
}

interface Signatures {
  valid: boolean;
  revisions: number;
  signatures: Signature[];
}

/** The field of the seal's signature that ends completion, locking every field (server/.../completion-seal.ts). */
const COMPLETION_FIELD = 'Mohar completion';

const TRUST = new Set(['trusted', 'untrusted', 'test_certificate', 'installation_seal']);

const PDF_DATE = /^D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?(?:([Zz+-])(\d{2})?'?(\d{2})?'?)?$/;

/** An ISO date, or a PDF date (D:20261125130308+05'30', what a signature's /M claims) as ISO; null otherwise. */
export function isoOf(value: string): string | null {
  if (!value.startsWith('D:')) return Number.isNaN(Date.parse(value)) ? null : value;
  const m = PDF_DATE.exec(value);
  if (!m) return null;
  const [
    ,
    year,
    month = '01',
    day = '01',
    hour = '00',
    minute = '00',
    second = '00',
    sign,
    offsetHours = '00',
    offsetMinutes = '00',
  ] = m;
  const zone = !sign || sign === 'Z' || sign === 'z' ? 'Z' : `${sign}${offsetHours}:${offsetMinutes}`;
  const iso = `${year}-${month}-${day}T${hour}:${minute}:${second}${zone}`;
  return Number.isNaN(Date.parse(iso)) ? null : iso;
}

/** A date the server gave as text; shown as it is when the browser cannot read it. */
function useSafeDate() {
  const { formatDate } = useT();
  return (value: string) => {
    const iso = isoOf(value);
    return iso ? formatDate(iso) : value;
  };
}

/**
 * Field names as a person reads them: Mohar's own fields (mohar.<recipient>.<field>) by their recipient's name
 * and how many, any other field (the sender's own, from the upload) by its PDF name.
 */
function useFieldNames(recipients: RecipientSummary[]) {
  const { t } = useT();
  return (fields: readonly string[]) => {
    const byRecipient = new Map<string, number>();
    const others: string[] = [];
    for (const field of fields) {
      const [root, id] = field.split('.');
      const recipient = root === 'mohar' ? recipients.find((r) => r.recipient_id === id) : undefined;
      if (recipient) byRecipient.set(recipient.name, (byRecipient.get(recipient.name) ?? 0) + 1);
      else others.push(`“${field}”`);
    }
    const named = [...byRecipient].map(([name, count]) => t('envelopes.signatures.locks.recipient', { name, count }));
    return [...named, ...others].join(', ');
  };
}

function LockFacts({ lock, recipients }: { lock: FieldLock; recipients: RecipientSummary[] }) {
  const { t } = useT();
  const names = useFieldNames(recipients);
  const locked =
    lock.action === 'All'
      ? t('envelopes.signatures.locks.all')
      : lock.action === 'Exclude'
        ? t('envelopes.signatures.locks.except', { fields: names(lock.fields) })
        : names(lock.fields);
  return (
    <>
      <dt>{t('envelopes.signatures.locks')}</dt>
      <dd>{locked}</dd>
    </>
  );
}

function SignatureItem({ signature, recipients }: { signature: Signature; recipients: RecipientSummary[] }) {
  const { t } = useT();
  const date = useSafeDate();
  const names = useFieldNames(recipients);
  const recipient = recipients.find((r) => r.recipient_id === signature.recipient_id);
  // An electronic signature is sealed by this server for the recipient: name the person, the seal is its certificate.
  const who =
    signature.kind === 'document_timestamp'
      ? t('envelopes.signatures.docTimestamp')
      : signature.field === COMPLETION_FIELD
        ? t('envelopes.signatures.completionLock')
        : (recipient?.name ?? signature.signer_name ?? signature.name ?? signature.field);
  const trust =
    signature.trust && TRUST.has(signature.trust.status)
      ? t(`envelopes.signatures.trust.${signature.trust.status}` as ConsoleStringKey)
      : null;
  return (
    <li className="env-signature-item">
      <strong>{who}</strong>
      <span className={`badge ${signature.valid ? 'tone-success' : 'tone-danger'}`}>
        {signature.valid ? t('envelopes.signatures.valid') : t('envelopes.signatures.invalid')}
      </span>
      {signature.pades_level && <span className="badge tone-info">PAdES {signature.pades_level}</span>}
      {trust && (
        <span className={`badge ${signature.trust!.status === 'untrusted' ? 'tone-warning' : ''}`}>
          {trust}
          {signature.trust!.reason ? ` (${signature.trust!.reason})` : ''}
        </span>
      )}
      <dl className="env-facts small">
        {recipient && (
          <>
            <dt>{t('envelopes.signatures.recipient')}</dt>
            <dd>{recipient.email}</dd>
          </>
        )}
        {signature.certificate && (
          <>
            <dt>{t('envelopes.signatures.certificate')}</dt>
            <dd>{signature.certificate.subject}</dd>
          </>
        )}
        {signature.certificate && (
          <>
            <dt>{t('envelopes.signatures.issuer')}</dt>
            <dd>{signature.certificate.issuer}</dd>
          </>
        )}
        {signature.certificate && (
          <>
            <dt>{t('envelopes.signatures.validity')}</dt>
            <dd>
              {date(signature.certificate.not_before)} – {date(signature.certificate.not_after)}
            </dd>
          </>
        )}
        {signature.signing_time && (
          <>
            <dt>{t('envelopes.signatures.time')}</dt>
            <dd>{date(signature.signing_time)}</dd>
          </>
        )}
        {signature.timestamp && (
          <>
            <dt>{t('envelopes.signatures.timestamp')}</dt>
            <dd>
              {date(signature.timestamp.time)}
              {signature.timestamp.valid ? '' : ` (${t('envelopes.signatures.invalid')})`}
            </dd>
          </>
        )}
        {signature.certification && (
          <>
            <dt>{t('envelopes.signatures.certification')}</dt>
            <dd>{signature.certification.allows}</dd>
          </>
        )}
        {signature.field_lock && <LockFacts lock={signature.field_lock} recipients={recipients} />}
      </dl>
      {signature.field_lock && signature.field_lock.changed.length > 0 && (
        <p className="field-error env-lock-broken" role="alert">
          {t('envelopes.signatures.lockBroken', { fields: names(signature.field_lock.changed) })}
        </p>
      )}
      {signature.problems.length > 0 && (
        <ul className="field-error">
          {signature.problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
    </li>
  );
}

export function SignatureSummary({
  envelopeId,
  documentId,
  recipients,
}: {
  envelopeId: string;
  documentId: string;
  recipients: RecipientSummary[];
}) {
  const { t } = useT();
  const summary = useResource(
    (signal) => api<Signatures>('GET', `/envelopes/${envelopeId}/documents/${documentId}/signatures`, { signal }),
    [envelopeId, documentId],
  );
  if (summary.error) return <ErrorNotice error={summary.error} onRetry={summary.reload} />;
  if (!summary.data) return <p className="muted small">{t('console.loading')}</p>;
  const { signatures, valid } = summary.data;
  return (
    <div className="env-signature-summary">
      <h3>{t('envelopes.signatures.title')}</h3>
      {signatures.length === 0 ? (
        <p className="muted small">{t('envelopes.signatures.none')}</p>
      ) : (
        <>
          <p className="small">
            {valid
              ? t('envelopes.signatures.allValid', { count: signatures.length })
              : t('envelopes.signatures.notAllValid')}
          </p>
          <ul className="env-signature-list">
            {signatures.map((s) => (
              <SignatureItem key={s.index} signature={s} recipients={recipients} />
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
