/**
 * POST /verify and the /verify page (issue 28, point 8): anyone's signed PDF, verified in the PDF worker pool with
 * the intake limits and never stored. The answer is our verifier's report in the API's words (the same summary as
 * GET …/documents/{id}/signatures), each signature's chain judged against the CCA India roots and the configured
 * anchors (chain-trust.ts), and, when the bytes are a document this server completed, that envelope's audit
 * summary (completed-envelope.ts). `cannot_know` lists what this report cannot tell, for the page to say plainly.
 */
import { MoharError } from '../../../common/errors.js';
import type { SignatureReport } from '../../../pdf/index.js';
import type { Context } from '../context.js';
import {
  sealIdentity,
  summarizeSignature,
  type SealIdentity,
  type SignatureSummary,
} from '../envelopes/signature-summary.js';
import { builtInAnchors } from '../trust/anchors.js';
import type { ChainTrust } from './chain-trust.js';
import { completedEnvelopeFor, type CompletedEnvelopeSummary } from './completed-envelope.js';

export type PublicSignature = Omit<SignatureSummary, 'recipient_id'> & { chain: ChainTrust };

/** What this report cannot know, as stable codes (the page words them; docs/verify.md explains each). */
export type Unknowable =
  | 'revocation_not_checked'
  | 'untrusted_chain_revocation'
  | 'claimed_time_only'
  | 'missing_intermediates_not_fetched'
  | 'identity_not_checked';

export interface PublicVerifyReport {
  sha256: string;
  size: number;
  revisions: number;
  /** There is at least one signature and every one is valid (integrity and allowed changes; not trust). */
  valid: boolean;
  verified_at: string;
  signatures: PublicSignature[];
  /** The envelope this server completed with exactly these bytes; null otherwise. */
  mohar_envelope: CompletedEnvelopeSummary | null;
  cannot_know: Unknowable[];
}

function bySeal(s: SignatureReport, seal: SealIdentity): boolean {
  return s.signer !== null && s.signer.serialNumber === seal.serial && s.signer.subject === seal.subject;
}

/** Recipient ids are the account's: the public report names signers by their certificates only. */
function withoutRecipient({ recipient_id, ...rest }: SignatureSummary): Omit<SignatureSummary, 'recipient_id'> {
  void recipient_id;
  return rest;
}

function unknowables(signatures: readonly PublicSignature[], completed: boolean): Unknowable[] {
  const out: Unknowable[] = ['revocation_not_checked'];
  const dsc = signatures.filter((s) => s.trust === null && s.certificate !== null);
  if (dsc.some((s) => s.chain.status === 'not_anchored')) out.push('untrusted_chain_revocation');
  if (dsc.some((s) => s.chain.status === 'not_anchored' && s.chain.problem === 'unknown_issuer')) {
    out.push('missing_intermediates_not_fetched');
  }
  if (signatures.some((s) => s.chain.judged_at_source !== 'timestamp')) out.push('claimed_time_only');
  if (!completed) out.push('identity_not_checked');
  return out;
}

export async function verifyPublicUpload(ctx: Context, bytes: Uint8Array): Promise<PublicVerifyReport> {
  const now = ctx.now();
  const anchors = { ccaIndia: builtInAnchors(), configured: ctx.config.dscTrustAnchors };
  const { report, chains, readError } = await ctx.pdf.run('verifyPublic', { bytes, anchors, now });
  if (!report) throw new MoharError('invalid_pdf', `the PDF cannot be verified: ${readError ?? 'unknown error'}`);
  const seals =
    report.signatures.length > 0 ? await Promise.all([sealIdentity(ctx, 'live'), sealIdentity(ctx, 'test')]) : [];
  const signatures = report.signatures.map((s, i): PublicSignature => {
    const seal = seals.find((candidate) => bySeal(s, candidate)) ?? null;
    return { ...withoutRecipient(summarizeSignature(s, null, seal)), chain: chains[i]! };
  });
  const envelope = await completedEnvelopeFor(ctx, report.sha256);
  return {
    sha256: report.sha256,
    size: report.size,
    revisions: report.revisions,
    valid: report.valid,
    verified_at: now.toISOString(),
    signatures,
    mohar_envelope: envelope,
    cannot_know: unknowables(signatures, envelope !== null),
  };
}
