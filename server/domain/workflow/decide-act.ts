/** Review, approve and decline acts: a recorded decision; an approver's values are written and sealed. */
import { MoharError } from '../../../common/errors.js';
import type { ActInput, SignerActBody } from '../../../common/signer-act.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import { claimRecipient, clientDetails, loadActors, lockActors, type ClientInfo } from './act-context.js';
import { commitActRevisions } from './act-revision.js';
import { fillValues } from './field-values.js';
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
    throw new MoharError(
      'action_not_allowed',
      `a ${role} cannot ${action}; allowed: ${ACTION_FOR_ROLE[role] ?? 'nothing'} or decline`,
    );
  }
}

/**
 * Review and approve. A reviewer holds no fields; an approver's values (Text, Date, Checkbox…) are written
 * like an electronic act's, in one revision sealed by the installation (act-revision.ts), with the same
 * rules (fillValues): required ones required, nothing that is not theirs. Nothing given is dropped: values
 * for fields that are not the recipient's are refused, and so is a signature (only signers sign).
 */
export async function approveOrReview(
  ctx: Context,
  session: ResolvedSession,
  action: 'approve' | 'review',
  input: ActInput,
  client: ClientInfo,
): Promise<DecisionResult> {
  if (input.consent !== true) throw new MoharError('consent_required', 'accept the consent statement to continue');
  const first = await loadActors(ctx.db, session.envelopeId, session.recipientId);
  checkActionForRole(action, first.recipient.role);
  for (const key of ['signature', 'initials'] as const) {
    if (input[key] === undefined) continue;
    throw new MoharError(
      'validation_failed',
      `a ${first.recipient.role} does not sign: send no ${key} with ${action}`,
      {
        errors: [
          {
            path: `/${key}`,
            message: `only signers sign and initial; ${action} takes consent and the values of your fields`,
          },
        ],
      },
    );
  }
  // A reviewer holds no fields (the layout refuses them); any a draft made before that rule gave them stay empty.
  const fields =
    action === 'review'
      ? []
      : await ctx.db
          .selectFrom('fields')
          .selectAll()
          .where('envelope_id', '=', session.envelopeId)
          .where('recipient_id', '=', session.recipientId)
          .orderBy('position')
          .execute();
  const now = ctx.now();
  const values = fillValues(fields, first.recipient, input.fields ?? {}, iso(now).slice(0, 10));
  const status = action === 'approve' ? 'approved' : 'reviewed';
  const { name, email } = first.recipient;
  const finished = await commitActRevisions(
    ctx,
    session.envelopeId,
    session.recipientId,
    {
      act: action === 'approve' ? 'approval' : 'review',
      revisionAct: 'approved',
      fields,
      values,
      signingTime: now,
      name,
      reason: `Approved by ${name} <${email}>`,
    },
    () => ({ status, method: 'review', client, details: (at) => ({ consent_at: at }) }),
  );
  return { status, envelopeFinished: finished };
}

export async function decline(
  ctx: Context,
  session: ResolvedSession,
  reason: SignerActBody['decline_reason'],
  client: ClientInfo,
): Promise<DecisionResult> {
  if (!reason || reason.trim() === '') {
    throw new MoharError('validation_failed', 'say why you decline (decline_reason)', {
      errors: [{ path: '/decline_reason', message: 'required to decline' }],
    });
  }
  const at = iso(ctx.now());
  await ctx.db.transaction().execute(async (trx) => {
    const { envelope, recipient, recipients } = await lockActors(ctx, trx, session.envelopeId, session.recipientId);
    // Claimed like every act: a signature or approval committed meanwhile is never overwritten.
    await claimRecipient(trx, recipient.id, {
      status: 'declined',
      acted_at: at,
      decline_reason: reason,
      act_details: JSON.stringify(clientDetails(client)),
    });
    const closed = await trx
      .updateTable('envelopes')
      .set({ status: 'declined', status_reason: reason, updated_at: at })
      .where('id', '=', envelope.id)
      .where('status', '=', 'sent')
      .executeTakeFirst();
    if (Number(closed.numUpdatedRows) !== 1) {
      throw new MoharError('envelope_closed', 'the envelope was closed meanwhile: nobody can act on it any more');
    }
    const declined = recipientSummary({ ...recipient, status: 'declined' });
    const actor = {
      type: 'recipient' as const,
      id: recipient.id,
      details: { recipient_id: recipient.id, reason, ...clientDetails(client) },
    };
    await recordEvent(
      trx,
      envelope.account_id,
      envelope.id,
      'recipient.declined',
      { envelope: envelopeSummary(envelope), recipient: declined, reason },
      at,
      actor,
    );
    await recordEvent(
      trx,
      envelope.account_id,
      envelope.id,
      'envelope.declined',
      { envelope: envelopeSummary({ ...envelope, status: 'declined' }), recipient: declined, reason },
      at,
      actor,
    );
    await mailStopped(
      trx,
      ctx,
      envelope,
      recipients.filter((r) => r.id !== recipient.id),
      { kind: 'declined', by: recipient.name, reason },
    );
  });
  return { status: 'declined', envelopeFinished: true };
}
