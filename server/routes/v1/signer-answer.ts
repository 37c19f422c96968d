/** What every signer act answers with, shared by the signer API and the sandbox's mock signing. */
import type { FastifyRequest } from 'fastify';
import type { Context } from '../../domain/context.js';
import { finalizeDocuments } from '../../domain/workflow/complete-envelope.js';
import type { DecisionResult } from '../../domain/workflow/decide-act.js';
import { envelopeAfterAct } from '../../domain/workflow/envelope-after-act.js';
import type { ResolvedSession } from '../../domain/workflow/sessions.js';
import type { ClientInfo } from '../../domain/workflow/act-context.js';

/**
 * Who acts, as the audit records it: the address (MOHAR_TRUST_PROXY decides whose), user agent, how they were reached.
 */
export function clientOf(request: FastifyRequest, session?: ResolvedSession): ClientInfo {
  return {
    ip: request.ip,
    userAgent: String(request.headers['user-agent'] ?? '').slice(0, 500),
    ...(session ? { reachedBy: session.reachedBy } : {}),
  };
}

/**
 * Completion is tried right after the last act, so the answer can say `completed`. It is also a durable job
 * (enqueued with the act): if it fails here (a TSA down, say), the act still stands and the job retries; the
 * job also issues the certificate of completion, outside the signer's request.
 */
async function completeNow(ctx: Context, envelopeId: string, request: FastifyRequest): Promise<void> {
  try {
    await finalizeDocuments(ctx, envelopeId);
  } catch (error) {
    request.log.warn({ err: error, envelopeId }, 'completion failed; the envelope.complete job will retry it');
  }
}

export async function completeAndAnswer(
  ctx: Context,
  session: ResolvedSession,
  result: DecisionResult,
  request: FastifyRequest,
): Promise<{ recipient_status: string; envelope_status: string; redirect_url: string | null }> {
  if (result.envelopeFinished && result.status !== 'declined') await completeNow(ctx, session.envelopeId, request);
  const envelope = await envelopeAfterAct(ctx, session.envelopeId);
  return {
    recipient_status: result.status,
    envelope_status: envelope.status,
    redirect_url: session.returnUrl ?? envelope.redirectUrl,
  };
}
