/** The envelope as a signer's act left it (after completion was tried): what the signer API answers with. */
import type { Context } from '../context.js';

export interface EnvelopeAfterAct {
  readonly status: string;
  /** Where the integrator wants signers sent once they acted (checked as http(s) when it was set), or null. */
  readonly redirectUrl: string | null;
}

export async function envelopeAfterAct(ctx: Context, envelopeId: string): Promise<EnvelopeAfterAct> {
  const envelope = await ctx.db
    .selectFrom('envelopes')
    .select(['status', 'redirect_url'])
    .where('id', '=', envelopeId)
    .executeTakeFirstOrThrow();
  return { status: envelope.status, redirectUrl: envelope.redirect_url };
}
