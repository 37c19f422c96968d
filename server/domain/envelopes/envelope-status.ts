/** GET /envelopes/{id}/status: the envelope's state and each recipient's, cheap enough to poll. */
import type { Context } from '../context.js';
import { findEnvelope } from './find-envelope.js';
import { recipientView, type RecipientView } from './views.js';

export interface EnvelopeStatusView {
  envelope_id: string;
  status: string;
  recipients: RecipientView[];
  updated_at: string;
}

export async function envelopeStatus(ctx: Context, accountId: string, envelopeId: string): Promise<EnvelopeStatusView> {
  const envelope = await findEnvelope(ctx, accountId, envelopeId);
  const recipients = await ctx.db.selectFrom('recipients').selectAll().where('envelope_id', '=', envelopeId).orderBy('position').execute();
  return { envelope_id: envelope.id, status: envelope.status, recipients: recipients.map(recipientView), updated_at: envelope.updated_at };
}
