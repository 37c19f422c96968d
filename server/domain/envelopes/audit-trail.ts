/** GET /envelopes/{id}/audit-trail: the envelope's events, oldest first, and whether their hash chain is intact. */
import { auditEventView, listAudit, verifyAuditChain, type AuditEventView } from '../../audit/index.js';
import type { Context } from '../context.js';
import { findEnvelope } from './find-envelope.js';

export interface AuditTrailView {
  envelope_id: string;
  chain: { ok: boolean; count: number; head_hash: string | null; first_bad_seq: number | null; problem: string | null };
  events: AuditEventView[];
}

export async function envelopeAuditTrail(ctx: Context, accountId: string, envelopeId: string): Promise<AuditTrailView> {
  await findEnvelope(ctx, accountId, envelopeId);
  const rows = await listAudit(ctx.db, envelopeId);
  const chain = verifyAuditChain(rows);
  return {
    envelope_id: envelopeId,
    chain: {
      ok: chain.ok,
      count: chain.count,
      head_hash: chain.headHash ?? null,
      first_bad_seq: chain.firstBadSeq ?? null,
      problem: chain.message ?? null,
    },
    events: rows.map(auditEventView),
  };
}
