/**
 * The public verifier's trust question (issue 28, point 8): does a signature's certificate chain to a CCA India root
 * or to an anchor this installation is configured with (MOHAR_DSC_TRUST_ANCHORS), and is that path sound at the time
 * the signature was made? It runs inside the PDF worker pool (pdf-tasks.ts, task `verifyPublic`), beside the
 * verifier, because the CMS it reads comes from an untrusted upload.
 *
 * Unlike the DSC act (trust/dsc-trust.ts) nothing is fetched: a public page must not make this server call URLs
 * that an anonymous upload names (caIssuers, OCSP, CRL). A path that needs a missing intermediate is therefore
 * "not anchored", and revocation is not asked; the page and docs/verify.md say so.
 */
import {
  buildCertificatePath,
  inspectCms,
  judgeCertificatePath,
  isoFromPdfDate,
  type PathProblem,
  type SignatureReport,
} from '../../../pdf/index.js';

export interface AnchorSet {
  /** The CCA India roots shipped with Mohar (server/trust/anchors). */
  readonly ccaIndia: readonly Uint8Array[];
  /** The installation's extra anchors (MOHAR_DSC_TRUST_ANCHORS). */
  readonly configured: readonly Uint8Array[];
}

export type ChainStatus = 'cca_india' | 'configured_anchor' | 'not_anchored' | 'no_certificate';

export interface ChainTrust {
  readonly status: ChainStatus;
  /** Subject of the anchor the path ends in; null when not anchored. */
  readonly anchor: string | null;
  /** Subjects, signer first, as far as the path could be built from the signature's own certificates. */
  readonly chain: string[];
  /** The time the path was judged at, and where that time comes from. */
  readonly judged_at: string;
  readonly judged_at_source: 'timestamp' | 'claimed_time' | 'verification_time';
  /** null: every certificate of the anchored path was valid then; else the first problem. */
  readonly problem: PathProblem | null;
  readonly problems: string[];
}

function contentsOf(pdf: Uint8Array, byteRange: readonly number[]): Buffer {
  const [, a = 0, b = 0] = byteRange;
  return Buffer.from(Buffer.from(pdf.subarray(a + 1, b - 1)).toString('latin1'), 'hex');
}

const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a).equals(Buffer.from(b));

/** A valid signature timestamp is the best time we have; then the time the signature claims; then now. */
function judgementTime(signature: SignatureReport, now: Date): Pick<ChainTrust, 'judged_at' | 'judged_at_source'> {
  if (signature.timestamp?.valid) return { judged_at: signature.timestamp.genTime, judged_at_source: 'timestamp' };
  const claimed = isoFromPdfDate(signature.signingTime);
  if (claimed) return { judged_at: claimed, judged_at_source: 'claimed_time' };
  return { judged_at: now.toISOString(), judged_at_source: 'verification_time' };
}

export function judgeChain(pdf: Uint8Array, signature: SignatureReport, anchors: AnchorSet, now: Date): ChainTrust {
  const time = judgementTime(signature, now);
  const none: ChainTrust = { status: 'no_certificate', anchor: null, chain: [], ...time, problem: null, problems: [] };
  let cms: ReturnType<typeof inspectCms>;
  try {
    cms = inspectCms(contentsOf(pdf, signature.byteRange));
  } catch (error) {
    return { ...none, problems: [`the signature's CMS cannot be read: ${(error as Error).message}`] };
  }
  if (!cms.signerCertificate) return none;
  const all = [...anchors.ccaIndia, ...anchors.configured];
  const built = buildCertificatePath(cms.signerCertificate, cms.certificates, all);
  const judged = judgeCertificatePath(built, new Date(time.judged_at));
  const top = built.path.at(-1);
  const status: ChainStatus = !built.anchored
    ? 'not_anchored'
    : top && anchors.ccaIndia.some((a) => sameBytes(a, top.der))
      ? 'cca_india'
      : 'configured_anchor';
  return {
    status,
    anchor: built.anchored && top ? top.subject : null,
    chain: built.path.map((c) => c.subject),
    ...time,
    problem: judged.problem,
    problems: judged.problems,
  };
}

/** Every signature's chain, in the report's order. */
export function judgeChains(
  pdf: Uint8Array,
  signatures: readonly SignatureReport[],
  anchors: AnchorSet,
  now: Date,
): ChainTrust[] {
  return signatures.map((s) => judgeChain(pdf, s, anchors, now));
}
