/**
 * POST /envelopes/{id}/recipients/{rid}/revoke-links: ends every live signing link of one recipient (mail,
 * legacy, signing sessions, sandbox), e.g. when a link was forwarded to the wrong person. Audited as
 * recipient.links_revoked with the count (never a token). Only while the envelope is in progress: a finished
 * envelope's links are dead already (envelope_not_in_progress, 409).
 */
import { MoharError } from '../../../common/errors.js';
import { appendAudit } from '../../audit/index.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import { findEnvelope } from '../envelopes/find-envelope.js';
import { revokeLinks } from './link-lifetime.js';

export interface RevokeLinksResult {
  envelope_id: string;
  recipient_id: string;
  /** How many live links were ended (0 when the recipient had none). */
  revoked: number;
}

export interface Revoker {
  readonly type: 'api_key' | 'user';
  readonly id: string | null;
}

export async function revokeRecipientLinks(
  ctx: Context,
  accountId: string,
  envelopeId: string,
  recipientId: string,
  by: Revoker,
): Promise<RevokeLinksResult> {
  const now = ctx.now();
  return ctx.db.transaction().execute(async (trx) => {
    const envelope = await findEnvelope({ ...ctx, db: trx }, accountId, envelopeId);
    const recipient = await trx
      .selectFrom('recipients')
      .select('id')
      .where('id', '=', recipientId)
      .where('envelope_id', '=', envelopeId)
      .executeTakeFirst();
    if (!recipient) {
      throw new MoharError('recipient_not_found', `recipient ${recipientId} is not on envelope ${envelopeId}`);
    }
    if (envelope.status !== 'sent') {
      throw new MoharError(
        'envelope_not_in_progress',
        `only the links of an envelope in progress can be revoked; this one is ${envelope.status}`,
        { extra: { envelope_status: envelope.status } },
      );
    }
    const revoked = await revokeLinks(trx, recipientId, now);
    await appendAudit(trx, {
      envelopeId,
      accountId,
      actorType: by.type,
      actorId: by.id,
      action: 'recipient.links_revoked',
      details: { recipient_id: recipientId, revoked },
      at: iso(now),
    });
    return { envelope_id: envelopeId, recipient_id: recipientId, revoked };
  });
}
