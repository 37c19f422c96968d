/** The verifier's report in words: the verdict, each signature, the completed envelope, and what cannot be known. */
import type { ReactNode } from 'react';
import { useI18n, type Translate } from '../i18n/i18n';
import { en, type StringKey } from '../i18n/strings';
import type { VerifiedEnvelope, VerifiedSignature, VerifyReport } from './report';

function useDate(): (iso: string | null) => string {
  const { language } = useI18n();
  return (iso) =>
    iso === null
      ? ''
      : new Date(iso).toLocaleString(language === 'hi' ? 'hi-IN' : 'en-IN', {
          dateStyle: 'medium',
          timeStyle: 'short',
        });
}

/** A key built from a server code, shown as the code itself when the page has no words for it. */
function say(t: Translate, key: string, params?: Record<string, string | number>): string {
  return key in en ? t(key as StringKey, params) : key.slice(key.lastIndexOf('.') + 1);
}

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </>
  );
}

function trustText(t: Translate, s: VerifiedSignature, date: (iso: string) => string): string {
  if (s.trust && (s.trust.status === 'installation_seal' || s.trust.status === 'test_certificate')) {
    return t(`verify.trust.${s.trust.status}`);
  }
  const chain = say(t, `verify.trust.${s.chain.status}`, { anchor: s.chain.anchor ?? '' });
  return s.chain.problems.length > 0 && s.chain.status !== 'not_anchored'
    ? `${chain}; ${t('verify.trust.problem', { time: date(s.chain.judged_at), problems: s.chain.problems.join('; ') })}`
    : chain;
}

function SignatureCard({ s }: { s: VerifiedSignature }) {
  const { t } = useI18n();
  const date = useDate();
  const what = say(t, `verify.change.${s.changes_after}`);
  const heading =
    s.kind === 'document_timestamp'
      ? t('verify.sig.timestamp', { index: s.index })
      : t('verify.sig.heading', { index: s.index, name: s.signer_name ?? s.name ?? t('verify.sig.unknownSigner') });
  return (
    <section className={`verify-card ${s.valid ? 'good' : 'bad'}`}>
      <h3>
        {heading}{' '}
        <span className={`verify-badge ${s.valid ? 'good' : 'bad'}`}>
          {t(s.valid ? 'verify.sig.ok' : 'verify.sig.bad')}
        </span>
      </h3>
      <dl>
        {s.certificate && <Row label={t('verify.sig.signer')}>{s.certificate.subject}</Row>}
        {s.name && s.name !== s.signer_name && <Row label={t('verify.sig.name')}>{s.name}</Row>}
        {s.certificate && <Row label={t('verify.sig.issuer')}>{s.certificate.issuer}</Row>}
        <Row label={t('verify.sig.trust')}>{trustText(t, s, date)}</Row>
        <Row label={t('verify.sig.time')}>
          {s.signing_time === null
            ? t('verify.sig.timeNone')
            : t(s.timestamp?.valid ? 'verify.sig.timeTimestamped' : 'verify.sig.timeClaimed', {
                time: date(s.signing_time),
              })}
        </Row>
        <Row label={t('verify.sig.level')}>{s.pades_level ?? t('verify.sig.levelNone')}</Row>
        <Row label={t('verify.sig.integrity')}>
          {t(s.integrity_ok ? 'verify.sig.integrityOk' : 'verify.sig.integrityBad')}
        </Row>
        <Row label={t('verify.sig.after')}>
          {s.changes_after === 'none'
            ? t('verify.sig.afterNone')
            : t(s.changes_after_allowed ? 'verify.sig.allowed' : 'verify.sig.notAllowed', { what })}
        </Row>
        {s.certification && (
          <Row label={t('verify.sig.certification')}>
            {t('verify.sig.certifies', { allows: s.certification.allows })}
          </Row>
        )}
        {s.field_lock && (
          <Row label={t('verify.sig.locks')}>
            {s.field_lock.action === 'All' ? t('verify.sig.locksAll') : s.field_lock.fields.join(', ')}
            {s.field_lock.changed.length > 0 && (
              <strong> {t('verify.sig.locksChanged', { fields: s.field_lock.changed.join(', ') })}</strong>
            )}
          </Row>
        )}
        {s.problems.length > 0 && (
          <Row label={t('verify.sig.problems')}>
            <ul>
              {s.problems.map((p) => (
                <li key={p}>{p}</li>
              ))}
            </ul>
          </Row>
        )}
      </dl>
    </section>
  );
}

function EnvelopeCard({ envelope }: { envelope: VerifiedEnvelope }) {
  const { t } = useI18n();
  const date = useDate();
  return (
    <section className="verify-card good" aria-labelledby="verify-envelope">
      <h2 id="verify-envelope">{t('verify.envelope.title')}</h2>
      <p>{t('verify.envelope.intro')}</p>
      {envelope.test && <p className="warning">{t('verify.envelope.test')}</p>}
      <dl>
        <Row label={t('verify.envelope.name')}>{envelope.title}</Row>
        <Row label={t('verify.envelope.sent')}>{date(envelope.sent_at)}</Row>
        <Row label={t('verify.envelope.completed')}>{date(envelope.completed_at)}</Row>
        <Row label={t('verify.envelope.recipients')}>
          <ul>
            {envelope.recipients.map((r, i) => (
              <li key={i}>
                {t('verify.envelope.acted', {
                  name: r.name,
                  role: r.role,
                  method: r.signature_method,
                  status: r.status,
                  time: date(r.acted_at),
                })}
              </li>
            ))}
          </ul>
        </Row>
        <Row label={t('verify.envelope.audit')}>
          {t(envelope.audit.chain_intact ? 'verify.envelope.auditOk' : 'verify.envelope.auditBroken', {
            count: envelope.audit.events,
          })}
        </Row>
      </dl>
    </section>
  );
}

export function ReportView({ report }: { report: VerifyReport }) {
  const { t } = useI18n();
  const verdict =
    report.signatures.length === 0
      ? 'verify.verdict.none'
      : report.valid
        ? 'verify.verdict.valid'
        : 'verify.verdict.invalid';
  return (
    <div className="verify-report">
      <p className={`verify-verdict ${report.valid ? 'good' : 'bad'}`} role="status">
        {t(verdict)}
      </p>
      <p className="muted verify-file">
        {t('verify.file', { size: report.size, revisions: report.revisions, sha: report.sha256 })}
      </p>
      {report.signatures.map((s) => (
        <SignatureCard key={s.index} s={s} />
      ))}
      {report.mohar_envelope ? (
        <EnvelopeCard envelope={report.mohar_envelope} />
      ) : (
        <p className="muted">{t('verify.envelope.none')}</p>
      )}
      <section className="verify-card" aria-labelledby="verify-unknown">
        <h2 id="verify-unknown">{t('verify.unknown.title')}</h2>
        <ul>
          {report.cannot_know.map((code) => (
            <li key={code}>{say(t, `verify.unknown.${code}`)}</li>
          ))}
        </ul>
      </section>
    </div>
  );
}
