/**
 * Binding a DSC certificate to the recipient: does the certificate name the person the envelope was sent
 * to? Indian DSCs carry the holder's name in CN (often upper case, with initials and dots: "MEERA K. IYER")
 * and the e-mail in subjectAltName or the subject's emailAddress.
 *
 * Names are compared ignoring case, spaces, punctuation and symbols, so "MEERA K. IYER", "Meera K Iyer" and
 * "Meera K.Iyer" are one name, and "M.K. Iyer" is "MK Iyer". Nothing else is forgiven: an initial that one side
 * spells out or leaves out ("Meera Iyer" vs "MEERA K IYER"), another order, or an honorific is a different
 * name; the e-mail can still bind such a certificate. Letters and combining marks are kept as they are
 * (no accent folding: in Devanagari the vowel signs are marks and tell names apart). E-mails ignore case.
 */
import { subjectValues, type CertInfo } from '../../../pdf/index.js';

export interface IdentityBinding {
  readonly certificate_name: string | null;
  readonly certificate_emails: string[];
  readonly name_match: boolean;
  /** null: the certificate carries no e-mail address. */
  readonly email_match: boolean | null;
}

/** How strictly an account binds certificates (server/domain/accounts/settings.ts). */
export type IdentityPolicy = 'name_or_email' | 'name_and_email' | 'record_only';

function normalizeName(name: string): string {
  return name
    .normalize('NFKC')
    .replace(/[\s\p{P}\p{S}\p{Cf}]+/gu, '')
    .toLowerCase();
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
  const wanted = normalizeName(recipient.name);
  return {
    certificate_name: name,
    certificate_emails: emails,
    name_match: name !== null && wanted !== '' && normalizeName(name) === wanted,
    email_match: emails.length === 0 ? null : emails.includes(recipient.email.trim().toLowerCase()),
  };
}

/**
 * Does the policy refuse this binding? name_or_email (the default): refused when neither the name nor an
 * e-mail matches (a certificate without e-mail must match by name). name_and_email: refused when the name
 * differs or the certificate's e-mails exclude the recipient's (no e-mail cannot contradict). record_only:
 * never refused.
 */
export function identityRefused(binding: IdentityBinding, policy: IdentityPolicy): boolean {
  switch (policy) {
    case 'name_or_email':
      return !binding.name_match && binding.email_match !== true;
    case 'name_and_email':
      return !binding.name_match || binding.email_match === false;
    case 'record_only':
      return false;
  }
}
