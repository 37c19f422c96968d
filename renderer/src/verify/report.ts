/** The JSON report of POST /verify (server/http/schemas/verify.ts, docs/verify.md), as the page reads it. */
export type ChainStatus = 'cca_india' | 'configured_anchor' | 'not_anchored' | 'no_certificate';

export interface VerifiedSignature {
  index: number;
  kind: 'signature' | 'document_timestamp';
  signer_name: string | null;
  name: string | null;
  certificate: { subject: string; issuer: string; email: string | null } | null;
  signing_time: string | null;
  timestamp: { time: string; valid: boolean } | null;
  pades_level: string | null;
  certification: { docmdp: number; allows: string } | null;
  field_lock: { action: 'All' | 'Include' | 'Exclude'; fields: string[]; changed: string[] } | null;
  integrity_ok: boolean;
  changes_after: string;
  changes_after_allowed: boolean;
  valid: boolean;
  problems: string[];
  trust: { status: string; reason: string | null } | null;
  chain: { status: ChainStatus; anchor: string | null; judged_at: string; problem: string | null; problems: string[] };
}

export interface VerifiedEnvelope {
  envelope_id: string;
  title: string;
  test: boolean;
  sent_at: string | null;
  completed_at: string | null;
  recipients: { name: string; role: string; signature_method: string; status: string; acted_at: string | null }[];
  audit: { events: number; chain_intact: boolean };
}

export interface VerifyReport {
  sha256: string;
  size: number;
  revisions: number;
  valid: boolean;
  signatures: VerifiedSignature[];
  mohar_envelope: VerifiedEnvelope | null;
  cannot_know: string[];
}

export type VerifyOutcome =
  | { kind: 'report'; report: VerifyReport }
  | { kind: 'refused'; detail: string; retryAfter: number | null }
  | { kind: 'network' };

/** Sends the file as the request body (application/pdf); the server answers the report or a problem+json. */
export async function verifyFile(file: File): Promise<VerifyOutcome> {
  let response: Response;
  try {
    response = await fetch('/verify', { method: 'POST', headers: { 'content-type': 'application/pdf' }, body: file });
  } catch {
    return { kind: 'network' };
  }
  if (response.ok) return { kind: 'report', report: (await response.json()) as VerifyReport };
  const problem = (await response.json().catch(() => ({}))) as { detail?: string };
  const retry = response.status === 429 ? Number(response.headers.get('retry-after') ?? '60') : null;
  return { kind: 'refused', detail: problem.detail ?? response.statusText, retryAfter: retry };
}
