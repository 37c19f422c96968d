/** What every signer act answers with, shared by the signer API and the sandbox's mock signing. */
import type { FastifyRequest } from 'fastify';
import type { Context } from '../../domain/context.js';
import type { DecisionResult } from '../../domain/workflow/decide-act.js';
import { settleAct } from '../../domain/workflow/settle-act.js';
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

/** The act's answer, once completion was tried (workflow/settle-act.ts). */
export async function completeAndAnswer(
  ctx: Context,
  session: ResolvedSession,
  result: DecisionResult,
): Promise<{ recipient_status: string; envelope_status: string; redirect_url: string | null }> {
  const envelope = await settleAct(ctx, session.envelopeId, result);
  return {
    recipient_status: result.status,
    envelope_status: envelope.status,
    redirect_url: session.returnUrl ?? envelope.redirectUrl,
  };
}
