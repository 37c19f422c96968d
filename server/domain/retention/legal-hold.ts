/**
 * PUT and DELETE {api_base}/envelopes/{id}/legal-hold: while an envelope is on legal hold, retention never purges
 * it (a litigation, an inquiry). Placing and releasing are audited in the envelope's trail; neither touches
 * updated_at, which keeps the time the envelope finished (the purge job counts from it).
 *
 * Both are conditional UPDATEs: a hold placed while the purge job works on the envelope either lands first (the
 * purge's own conditional UPDATE then finds the hold and skips it) or finds the envelope purged and is refused
 * (documents_purged): never a held envelope without its documents.
 */
import { MoharError } from '../../../common/errors.js';
import { appendAudit } from '../../audit/index.js';
import type { Context } from '../context.js';
import { findEnvelope } from '../envelopes/find-envelope.js';
import { loadEnvelopeView, type EnvelopeView } from '../envelopes/views.js';
import { iso } from '../time.js';
import { purgedError } from './purged.js';

/** Who acts: the console's user or the integrator's key. */
export interface HoldActor {
  readonly type: 'user' | 'api_key';
  readonly id: string | null;
}

export const MAX_HOLD_REASON = 1000;

const actorName = (actor: HoldActor) => `${actor.type}:${actor.id ?? 'unknown'}`;

export async function placeLegalHold(
  ctx: Context,
  accountId: string,
  envelopeId: string,
  actor: HoldActor,
  reason: string,
): Promise<EnvelopeView> {
  const text = reason.trim();
  if (text.length === 0 || text.length > MAX_HOLD_REASON) {
    const message = `must say why, in 1 to ${MAX_HOLD_REASON} characters`;
    throw new MoharError('validation_failed', `/reason ${message}`, { errors: [{ path: '/reason', message }] });
  }
  const at = iso(ctx.now());
  await ctx.db.transaction().execute(async (trx) => {
    const envelope = await findEnvelope({ ...ctx, db: trx }, accountId, envelopeId);
    if (envelope.legal_hold_at && envelope.legal_hold_reason === text) return; // the same PUT again: no change
    const held = await trx
      .updateTable('envelopes')
      .set({ legal_hold_at: at, legal_hold_by: actorName(actor), legal_hold_reason: text })
      .where('id', '=', envelopeId)
      .where('purged_at', 'is', null)
      .executeTakeFirst();
    if (Number(held.numUpdatedRows) !== 1) throw purgedError(envelopeId);
    await appendAudit(trx, {
      envelopeId,
      accountId,
      actorType: actor.type,
      actorId: actor.id,
      action: 'legal_hold.placed',
      details: { reason: text, ...(envelope.legal_hold_at ? { replaces: envelope.legal_hold_reason } : {}) },
      at,
    });
  });
  return loadEnvelopeView(ctx.db, envelopeId);
}

export async function releaseLegalHold(
  ctx: Context,
  accountId: string,
  envelopeId: string,
  actor: HoldActor,
): Promise<EnvelopeView> {
  const at = iso(ctx.now());
  await ctx.db.transaction().execute(async (trx) => {
    const envelope = await findEnvelope({ ...ctx, db: trx }, accountId, envelopeId);
    if (!envelope.legal_hold_at) return; // nothing held: DELETE is idempotent
    const released = await trx
      .updateTable('envelopes')
      .set({ legal_hold_at: null, legal_hold_by: null, legal_hold_reason: null })
      .where('id', '=', envelopeId)
      .where('legal_hold_at', '=', envelope.legal_hold_at)
      .executeTakeFirst();
    if (Number(released.numUpdatedRows) !== 1) return; // released (or replaced) by someone else meanwhile
    await appendAudit(trx, {
      envelopeId,
      accountId,
      actorType: actor.type,
      actorId: actor.id,
      action: 'legal_hold.released',
      details: { reason: envelope.legal_hold_reason, placed_at: envelope.legal_hold_at },
      at,
    });
  });
  return loadEnvelopeView(ctx.db, envelopeId);
}
