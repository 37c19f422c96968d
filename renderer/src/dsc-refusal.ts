/**
 * The server's refusals of a USB DSC upload in the signer's words: whose certificate it was and for whom the
 * document is (dsc_identity_mismatch), or why the certificate is not trusted (dsc_certificate_untrusted and its
 * reason). Other failures: null (the caller shows its general message).
 */
import { ApiError } from './api';
import type { Translate } from './i18n/i18n';
import type { StringKey } from './i18n/strings';

const UNTRUSTED_REASONS = new Set([
  'unknown_issuer',
  'expired',
  'not_yet_valid',
  'revoked',
  'revocation_unknown',
  'not_for_signing',
]);

/** "X <x@…>", "X", or "<x@…>": the certificate as its holder would recognise it. */
function certificateHolder(problem: Record<string, unknown>, t: Translate): string {
  const name = typeof problem.certificate_name === 'string' ? problem.certificate_name : '';
  const emails = Array.isArray(problem.certificate_emails)
    ? problem.certificate_emails.filter((e): e is string => typeof e === 'string')
    : [];
  const email = emails.length > 0 ? `<${emails.join(', ')}>` : '';
  return [name, email].filter((part) => part !== '').join(' ') || t('dsc.refused.unnamed');
}

export function dscRefusalMessage(error: unknown, recipientName: string, t: Translate): string | null {
  if (!(error instanceof ApiError)) return null;
  if (error.code === 'dsc_identity_mismatch') {
    return t('dsc.refused.identity', { holder: certificateHolder(error.problem, t), recipient: recipientName });
  }
  if (error.code === 'dsc_certificate_untrusted') {
    const reason = typeof error.problem.reason === 'string' ? error.problem.reason : '';
    const why = UNTRUSTED_REASONS.has(reason) ? t(`dsc.untrusted.${reason}` as StringKey) : error.message;
    return t('dsc.refused.untrusted', { why });
  }
  return null;
}
