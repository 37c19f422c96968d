/**
 * How long a signing link lives, and which link is "the" link of a recipient (issue 16, point 11).
 *
 * Links handed out to be kept (kinds 'mail': invitation, your-turn and reminder mails; 'legacy_link': the legacy
 * signing_info and signing-links) live MOHAR_SIGNING_LINK_TTL_DAYS at most, never past the envelope's expiry. A
 * recipient has one such link at a time: minting one revokes their earlier kept links. API signing sessions
 * ('session', 15 minutes, redirect or embedded) and sandbox links are separate: made for a signer who is there
 * now, they neither revoke kept links nor are revoked by them. revoke-links ends every live link of a recipient.
 */
import type { Kysely } from 'kysely';
import type { Config } from '../../config.js';
import type { Database, SigningLinkKind } from '../../storage/schema.js';
import { iso } from '../time.js';

export const KEPT_LINK_KINDS: readonly SigningLinkKind[] = ['mail', 'legacy_link'];

/** The expiry of a kept link minted now: the envelope's expiry or the configured lifetime, whichever is first. */
export function keptLinkExpiry(
  config: Pick<Config, 'signingLinkTtlDays'>,
  envelopeExpiresAt: string | null,
  now: Date,
): Date {
  const longest = new Date(now.getTime() + config.signingLinkTtlDays * 86_400_000);
  if (envelopeExpiresAt === null) return longest;
  const envelopeEnd = new Date(envelopeExpiresAt);
  return envelopeEnd < longest ? envelopeEnd : longest;
}

/** Revokes a recipient's live links (of the given kinds, or all); returns how many. */
export async function revokeLinks(
  db: Kysely<Database>,
  recipientId: string,
  now: Date,
  kinds?: readonly SigningLinkKind[],
): Promise<number> {
  let update = db
    .updateTable('signing_sessions')
    .set({ revoked_at: iso(now) })
    .where('recipient_id', '=', recipientId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', iso(now));
  if (kinds) update = update.where('kind', 'in', kinds);
  const result = await update.executeTakeFirst();
  return Number(result.numUpdatedRows);
}
