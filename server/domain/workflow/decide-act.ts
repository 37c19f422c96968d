/** Review, approve and decline acts: no PDF change, a recorded decision. */
import { MoharError } from '../../../common/errors.js';
import { iso, type Context } from '../context.js';
import { loadActors, recordAct, type ClientInfo } from './act-context.js';
import { recordEvent } from './events.js';
import type { ResolvedSession } from './sessions.js';
import { envelopeSummary, recipientSummary } from './summaries.js';
import { mailStopped } from './notify.js';

export interface DecisionResult {
  readonly status: string;
  readonly envelopeFinished: boolean;
}

const ACTION_FOR_ROLE: Record<string, string> = { signer: 'sign', reviewer: 'review', approver: 'approve' };

export function checkActionForRole(action: string, role: string): void {
  if (action === 'decline') return;
  if (ACTION_FOR_ROLE[role] !== action) {
    throw new MoharError('action_not_allowed', `a ${role} cannot ${action}; allowed: ${ACTION_FOR_ROLE[role] ?? 'nothing'} or decline`);
  }
}

export async function approveOrReview(ctx: Context, session: ResolvedSession, action: 'approve' | 'review', consent: boolean, client: ClientInfo): Promise<DecisionResult> {
  if (!consent) throw new MoharError('consent_required', 'accept the consent statement to continue');
  const at = iso(ctx.now());
  const finished = await ctx.db.transaction().execute(async (trx) => {
    const { envelope, recipient, recipients } = await loadActors(trx, session.envelopeId, session.recipientId);
    checkActionForRole(action, recipient.role);
    return recordAct(ctx, trx, envelope, recipients, recipient, action === 'approve' ? 'approved' : 'reviewed', { method: 'review', consent_at: at, ip: client.ip, user_agent: client.userAgent }, at);
  });
  return { status: action === 'approve' ? 'approved' : 'reviewed', envelopeFinished: finished };
}

export async function decline(ctx: Context, session: ResolvedSession, reason: string | undefined, client: ClientInfo): Promise<DecisionResult> {
  if (!reason || reason.trim() === '') throw new MoharError('validation_failed', 'say why you decline (decline_reason)', { errors: [{ path: '/decline_reason', message: 'required to decline' }] });
  const at = iso(ctx.now());
  await ctx.db.transaction().execute(async (trx) => {
    const { envelope, recipient, recipients } = await loadActors(trx, session.envelopeId, session.recipientId);
    await trx.updateTable('recipients').set({ status: 'declined', acted_at: at, decline_reason: reason, act_details: JSON.stringify({ ip: client.ip, user_agent: client.userAgent }) }).where('id', '=', recipient.id).execute();
    await trx.updateTable('envelopes').set({ status: 'declined', status_reason: reason, updated_at: at }).where('id', '=', envelope.id).where('status', '=', 'sent').execute();
    const declined = recipientSummary({ ...recipient, status: 'declined' });
    const actor = { type: 'recipient' as const, id: recipient.id, details: { recipient_id: recipient.id, reason, ip: client.ip, user_agent: client.userAgent } };
    await recordEvent(trx, envelope.account_id, envelope.id, 'recipient.declined', { envelope: envelopeSummary(envelope), recipient: declined, reason }, at, actor);
    await recordEvent(trx, envelope.account_id, envelope.id, 'envelope.declined', { envelope: envelopeSummary({ ...envelope, status: 'declined' }), recipient: declined, reason }, at, actor);
    await mailStopped(trx, ctx, envelope, recipients.filter((r) => r.id !== recipient.id), { kind: 'declined', by: recipient.name, reason });
  });
  return { status: 'declined', envelopeFinished: true };
}
