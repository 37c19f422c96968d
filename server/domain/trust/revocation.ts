/**
 * The revocation verdict for a DSC path, from what gatherValidationData found per certificate (OCSP
 * first, CRL second). The signer certificate must be known good. A CA certificate above it is judged
 * when it publishes revocation information (an OCSP URL or a CRL distribution point); one that
 * publishes none cannot be checked by anybody and is recorded as such. A revocation after a trusted
 * timestamp's time does not void a signature made before it.
 */
import { accessUrls, crlUrls, OID, type CertificateNote, type CertInfo } from '../../../pdf/index.js';

export interface RevocationRecord {
  readonly status: 'good' | 'revoked' | 'unknown' | 'not_checked';
  readonly source: 'ocsp' | 'crl' | null;
  readonly url: string | null;
  /** When the answer was obtained (the server's clock). */
  readonly checked_at: string | null;
  readonly revocation_time: string | null;
  readonly revocation_reason: string | null;
}

function sourceOf(note: CertificateNote): RevocationRecord['source'] {
  if (note.source === 'ocsp' || note.source === 'supplied-ocsp') return 'ocsp';
  if (note.source === 'crl' || note.source === 'supplied-crl') return 'crl';
  return null;
}

function publishesRevocation(cert: CertInfo): boolean {
  return accessUrls(cert, OID.adOcsp).length > 0 || crlUrls(cert).length > 0;
}

export function judgeRevocation(
  path: readonly CertInfo[],
  notes: readonly CertificateNote[],
  stampedAt: Date | null,
  now: Date,
  problems: string[],
): RevocationRecord {
  const noteOf = (cert: CertInfo) => notes.find((n) => n.serialNumber === cert.serialHex && n.subject === cert.subject);
  const revokedInTime = (note: CertificateNote): boolean =>
    !stampedAt || !note.revocationTime || note.revocationTime.getTime() <= stampedAt.getTime();
  const signerNote = noteOf(path[0]!);
  const base: RevocationRecord = {
    status: 'unknown',
    source: signerNote ? sourceOf(signerNote) : null,
    url: signerNote?.url ?? null,
    checked_at: now.toISOString(),
    revocation_time: signerNote?.revocationTime?.toISOString() ?? null,
    revocation_reason: signerNote?.revocationReason ?? null,
  };
  // The anchor (last) is trusted as configured; every certificate below it is checked.
  for (const [index, cert] of path.slice(0, -1).entries()) {
    const note = noteOf(cert);
    if (note?.status === 'revoked') {
      if (revokedInTime(note)) {
        problems.push(
          `${cert.subject} is revoked${note.revocationTime ? ` since ${note.revocationTime.toISOString()}` : ''}${note.revocationReason ? ` (${note.revocationReason})` : ''}`,
        );
        return {
          ...base,
          status: 'revoked',
          source: sourceOf(note),
          url: note.url,
          revocation_time: note.revocationTime?.toISOString() ?? null,
          revocation_reason: note.revocationReason,
        };
      }
      problems.push(
        `${cert.subject} was revoked at ${note.revocationTime!.toISOString()}, after the trusted timestamp`,
      );
      continue;
    }
    if (note?.status === 'good' || note?.status === 'not-checked') continue;
    if (index > 0 && !publishesRevocation(cert)) {
      problems.push(`${cert.subject} publishes no revocation information`);
      continue;
    }
    problems.push(
      `the revocation status of ${cert.subject} is unknown: ${note?.problems.join('; ') || 'nothing found'}`,
    );
    return base;
  }
  return { ...base, status: 'good' };
}
