/**
 * For the public verifier: when the uploaded bytes are exactly the final document of an envelope this server
 * completed, the envelope's audit summary. Whoever holds that file was sent it at completion, so what is shown is
 * what the file and its certificate of completion already tell them: the title, when it was sent and completed,
 * each recipient's name, role, method and time of acting, and whether the hash-chained audit trail is intact with
 * its events' names and times. Nothing else of the account (its name, e-mail addresses, IP addresses, other
 * envelopes) is disclosed, and a file of an envelope that is not completed matches nothing.
 */
import { listAudit, verifyAuditChain } from '../../audit/index.js';
import type { Context } from '../context.js';

export interface CompletedEnvelopeSummary {
  envelope_id: string;
  title: string;
  /** A test envelope (qsk_test_ key): no legal effect. */
  test: boolean;
  sent_at: string | null;
  completed_at: string | null;
  pades_level: string | null;
  recipients: {
    name: string;
    role: string;
    signature_method: string;
    status: string;
    acted_at: string | null;
    /** USB DSC signers: the certificate trust judged (OCSP/CRL included) when the signature was accepted. */
    certificate_trust: { status: string; reason: string | null } | null;
  }[];
  audit: {
    events: number;
    chain_intact: boolean;
    trail: { at: string; action: string }[];
  };
}

function recordedTrust(method: string, actDetails: string | null): { status: string; reason: string | null } | null {
  if (method !== 'dsc' || !actDetails) return null;
  const details = JSON.parse(actDetails) as { trust?: string; trust_reason?: string | null };
  return details.trust ? { status: details.trust, reason: details.trust_reason ?? null } : null;
}

export async function completedEnvelopeFor(ctx: Context, sha256: string): Promise<CompletedEnvelopeSummary | null> {
  const envelope = await ctx.db
    .selectFrom('envelope_documents')
    .innerJoin('envelopes', 'envelopes.id', 'envelope_documents.envelope_id')
    .select([
      'envelopes.id',
      'envelopes.title',
      'envelopes.mode',
      'envelopes.sent_at',
      'envelopes.completed_at',
      'envelopes.pades_level',
    ])
    .where('envelope_documents.current_sha256', '=', sha256)
    .where('envelopes.status', '=', 'completed')
    .orderBy('envelopes.completed_at', 'desc')
    .executeTakeFirst();
  if (!envelope) return null;
  const [recipients, rows] = await Promise.all([
    ctx.db
      .selectFrom('recipients')
      .select(['name', 'role', 'signature_method', 'status', 'acted_at', 'act_details'])
      .where('envelope_id', '=', envelope.id)
      .orderBy('position')
      .execute(),
    listAudit(ctx.db, envelope.id),
  ]);
  const chain = verifyAuditChain(rows);
  return {
    envelope_id: envelope.id,
    title: envelope.title,
    test: envelope.mode === 'test',
    sent_at: envelope.sent_at,
    completed_at: envelope.completed_at,
    pades_level: envelope.pades_level,
    recipients: recipients.map((r) => ({
      name: r.name,
      role: r.role,
      signature_method: r.signature_method,
      status: r.status,
      acted_at: r.acted_at,
      certificate_trust: recordedTrust(r.signature_method, r.act_details),
    })),
    audit: {
      events: chain.count,
      chain_intact: chain.ok,
      trail: rows.map((row) => ({ at: row.at, action: row.action })),
    },
  };
}
