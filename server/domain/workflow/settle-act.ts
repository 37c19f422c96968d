/**
 * What follows a committed signer act, before its answer. After the last act completion is tried at once, so the
 * answer can say `completed`. Completion is also a durable job, enqueued with the act (act-context.ts recordAct):
 * if it fails here (a TSA down, say) the act still stands, the failure is logged and the `envelope.complete` job
 * retries it; the job also issues the certificate of completion, outside the signer's request.
 */
import type { EnvelopeStatus } from '../../storage/schema.js';
import type { Context } from '../context.js';
import { finalizeDocuments } from './complete-envelope.js';
import type { DecisionResult } from './decide-act.js';

/** The envelope as the act left it (after completion was tried): what the signer's answer says. */
export interface SettledEnvelope {
  readonly status: EnvelopeStatus;
  /** Where the integrator wants signers sent once they acted (checked as http(s) when it was set), or null. */
  readonly redirectUrl: string | null;
}

/** Settles the act `act` on the envelope: the envelope row is read once, for completion and the answer alike. */
export async function settleAct(ctx: Context, envelopeId: string, act: DecisionResult): Promise<SettledEnvelope> {
  const envelope = await ctx.db
    .selectFrom('envelopes')
    .select(['id', 'status', 'mode', 'redirect_url'])
    .where('id', '=', envelopeId)
    .executeTakeFirstOrThrow();
  const settled: SettledEnvelope = { status: envelope.status, redirectUrl: envelope.redirect_url };
  // A decline finishes the envelope too, as declined: there is nothing to complete.
  if (!act.envelopeFinished || act.status === 'declined') return settled;
  try {
    return { ...settled, status: await finalizeDocuments(ctx, envelope) };
  } catch (error) {
    ctx.log.warn({ err: error, envelopeId }, 'completion failed; the envelope.complete job will retry it');
    return settled;
  }
}
