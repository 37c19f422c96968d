/**
 * Binding a DSC certificate to the recipient: does the certificate name the person the envelope was sent
 * to? Indian DSCs carry the holder's name in CN (often upper case) and the e-mail in subjectAltName or the
 * subject's emailAddress; both comparisons ignore case and repeated spaces. A certificate without an
 * e-mail cannot contradict the recipient's (email_match null).
 */
import { subjectValues, type CertInfo } from '../../../pdf/index.js';

export interface IdentityBinding {
  readonly certificate_name: string | null;
  readonly certificate_emails: string[];
  readonly name_match: boolean;
  /** null: the certificate carries no e-mail address. */
  readonly email_match: boolean | null;
}

function normalizeName(name: string): string {
  return name.normalize('NFKC').replace(/[.,]/g, ' ').replace(/\s+/g, ' ').trim().toLowerCase();
}

function certificateEmails(cert: CertInfo): string[] {
  const san = (cert.x509.subjectAltName ?? '')
    .split(/,\s*/)
    .flatMap((part) => (part.startsWith('email:') ? [part.slice(6)] : []));
  return [
    ...new Set(
      [...san, ...subjectValues(cert, 'emailAddress')].map((e) => e.trim().toLowerCase()).filter((e) => e !== ''),
    ),
  ];
}

export function bindIdentity(
  cert: CertInfo,
  recipient: { readonly name: string; readonly email: string },
): IdentityBinding {
  const name = subjectValues(cert, 'CN')[0] ?? null;
  const emails = certificateEmails(cert);
  return {
    certificate_name: name,
    certificate_emails: emails,
    name_match: name !== null && normalizeName(name) === normalizeName(recipient.name),
    email_match: emails.length === 0 ? null : emails.includes(recipient.email.trim().toLowerCase()),
  };
}

/** A mismatch: the name differs, or the certificate's e-mail addresses do not include the recipient's. */
export function identityMismatch(binding: IdentityBinding): boolean {
  return !binding.name_match || binding.email_match === false;
}
