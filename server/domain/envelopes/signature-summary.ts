/**
 * GET /envelopes/{id}/documents/{document_id}/signatures: what our verifier (pdf/verify) says about the
 * current PDF of a document (the latest revision once sent, the upload while a draft), for the envelope
 * detail page. The verification runs in the PDF worker pool: the bytes may be large and hostile.
 *
 * The verifier judges integrity, not trust. Where the server knows more it says so: a USB DSC signature
 * carries the trust result judged when it was accepted (recipient act_details), and signatures by this
 * installation's seal (certification at send, electronic acts) are named as such.
 */
import { certInfo, isoFromPdfDate, type SignatureReport } from '../../../pdf/index.js';
import { fieldLockSummary, type FieldLockSummary } from './field-lock-summary.js';
import { MoharError } from '../../../common/errors.js';
import { sealFor, type Context } from '../context.js';
import type { DataMode } from '../../storage/schema.js';
import { pdfFieldName } from '../workflow/field-names.js';
import { findEnvelope } from './find-envelope.js';
import { refusePurged } from '../retention/purged.js';
import { FIELD_TYPES } from '../../../common/fields.js';
import { envelopeFieldRows } from './field-rows.js';

/** Classes of change Mohar's allow-list can ever accept after a signature (pdf/verify/judge.ts allowedBy). */
const ALLOW_LIST_CLASSES = new Set(['structure', 'ltv', 'metadata', 'signing', 'form_filling']);

export type TrustStatus = 'trusted' | 'untrusted' | 'test_certificate' | 'installation_seal';

export interface SignatureSummary {
  index: number;
  field: string;
  kind: 'signature' | 'document_timestamp';
  /** Common name of the signing certificate; `name` is the /Name the signature dictionary gives. */
  signer_name: string | null;
  name: string | null;
  certificate: {
    subject: string;
    issuer: string;
    serial: string;
    email: string | null;
    not_before: string;
    not_after: string;
  } | null;
  signing_time: string | null;
  timestamp: { time: string; valid: boolean } | null;
  pades_level: string | null;
  certification: { docmdp: number; allows: string } | null;
  /** The fields this signature locks (FieldMDP), and those of them changed after it; null when it locks none. */
  field_lock: FieldLockSummary | null;
  integrity_ok: boolean;
  covers_whole_document: boolean;
  revision: number | null;
  changes_after: string;
  changes_after_allowed: boolean;
  valid: boolean;
  problems: string[];
  recipient_id: string | null;
  trust: { status: TrustStatus; reason: string | null } | null;
}

export interface SignaturesAnswer {
  envelope_id: string;
  document_id: string;
  sha256: string;
  size: number;
  revisions: number;
  valid: boolean;
  signatures: SignatureSummary[];
}

const DOCMDP_ALLOWS: Record<number, string> = {
  1: 'no changes',
  2: 'form filling and signing',
  3: 'form filling, signing and annotations',
};

function commonName(subject: string): string | null {
  return /(?:^|, )CN=([^,]+)/.exec(subject)?.[1]?.trim() ?? null;
}

export async function signatureSummary(
  ctx: Context,
  accountId: string,
  envelopeId: string,
  documentId: string,
): Promise<SignaturesAnswer> {
  const envelope = await findEnvelope(ctx, accountId, envelopeId);
  refusePurged(envelope);
  const attached = await ctx.db
    .selectFrom('envelope_documents')
    .innerJoin('documents', 'documents.id', 'envelope_documents.document_id')
    .select(['documents.sha256', 'envelope_documents.current_sha256'])
    .where('envelope_documents.envelope_id', '=', envelopeId)
    .where('envelope_documents.document_id', '=', documentId)
    .executeTakeFirst();
  if (!attached) {
    throw new MoharError('document_not_found', `document ${documentId} is not attached to envelope ${envelopeId}`);
  }
  const bytes = await ctx.blobs.get(attached.current_sha256 ?? attached.sha256);
  const { report, readError } = await ctx.pdf.run('verify', { bytes });
  if (!report) {
    throw new MoharError('invalid_pdf', `the stored PDF cannot be verified: ${readError ?? 'unknown error'}`);
  }
  const known = await knownSigners(ctx, envelopeId, documentId);
  const seal = report.signatures.length > 0 ? await sealIdentity(ctx, envelope.mode) : null;
  return {
    envelope_id: envelopeId,
    document_id: documentId,
    sha256: report.sha256,
    size: report.size,
    revisions: report.revisions,
    valid: report.valid,
    signatures: report.signatures.map((s) => summarizeSignature(s, known.get(s.field) ?? null, seal)),
  };
}

export interface KnownSigner {
  recipientId: string;
  trust: { status: TrustStatus; reason: string | null } | null;
}

/** Signature fields of this document by PDF field name, with the trust judged when a DSC signature was accepted. */
async function knownSigners(ctx: Context, envelopeId: string, documentId: string): Promise<Map<string, KnownSigner>> {
  // Through envelopeFieldRows: a draft's layout by reference may name signature fields of the upload too.
  const [fields, recipients] = await Promise.all([
    envelopeFieldRows(ctx.db, envelopeId),
    ctx.db
      .selectFrom('recipients')
      .select(['id', 'signature_method', 'act_details'])
      .where('envelope_id', '=', envelopeId)
      .execute(),
  ]);
  const byId = new Map(recipients.map((r) => [r.id, r]));
  const rows = fields
    .filter((f) => f.document_id === documentId && f.field_type === FIELD_TYPES.SIGNATURE && byId.has(f.recipient_id))
    .map((f) => ({ ...f, ...byId.get(f.recipient_id)!, id: f.id }));
  const known = new Map<string, KnownSigner>();
  for (const row of rows) {
    const details = JSON.parse(row.act_details ?? '{}') as { trust?: TrustStatus; trust_reason?: string | null };
    const trust =
      row.signature_method === 'dsc' && details.trust
        ? { status: details.trust, reason: details.trust_reason ?? null }
        : null;
    known.set(pdfFieldName(row), { recipientId: row.recipient_id, trust });
  }
  return known;
}

/**
 * The seal's certificate (the test seal's for a test envelope) as the verifier prints it, to recognise its signatures.
 */
export async function sealIdentity(ctx: Context, mode: DataMode | undefined): Promise<SealIdentity> {
  const { x509 } = certInfo((await sealFor(ctx, mode)).certificate);
  return { subject: x509.subject.split('\n').join(', '), serial: x509.serialNumber, test: mode === 'test' };
}

export interface SealIdentity {
  readonly subject: string;
  readonly serial: string;
  /** The test seal of a test envelope (issue 16): its signatures are a test's, never the installation seal's. */
  readonly test: boolean;
}

const TEST_SEAL_TRUST = {
  status: 'test_certificate',
  reason: 'signed by the test seal of a test envelope (qsk_test_ key): no legal effect',
} as const;

/** One signature of the verifier's report in the API's words (also the public verifier's, domain/verify). */
export function summarizeSignature(
  s: SignatureReport,
  known: KnownSigner | null,
  seal: SealIdentity | null,
): SignatureSummary {
  const fieldLock = fieldLockSummary(s);
  const bySeal =
    seal !== null && s.signer !== null && s.signer.serialNumber === seal.serial && s.signer.subject === seal.subject;
  return {
    index: s.index,
    field: s.field,
    kind: s.kind,
    signer_name: s.signer ? commonName(s.signer.subject) : null,
    name: s.name,
    certificate: s.signer
      ? {
          subject: s.signer.subject,
          issuer: s.signer.issuer,
          serial: s.signer.serialNumber,
          email: s.signer.email,
          not_before: s.signer.notBefore,
          not_after: s.signer.notAfter,
        }
      : null,
    // The claimed /M time is a PDF date string; integrators and the console want ISO 8601 like every other time.
    signing_time: s.timestamp?.genTime ?? isoFromPdfDate(s.signingTime) ?? s.signingTime,
    timestamp: s.timestamp ? { time: s.timestamp.genTime, valid: s.timestamp.valid } : null,
    pades_level: s.padesLevel,
    certification:
      s.docMdp === null ? null : { docmdp: s.docMdp, allows: DOCMDP_ALLOWS[s.docMdp] ?? DOCMDP_ALLOWS[2]! },
    field_lock: fieldLock,
    integrity_ok: s.digestValid && s.signatureValid,
    covers_whole_document: s.coversWholeDocument,
    revision: s.revision,
    changes_after: s.changesAfter,
    changes_after_allowed:
      s.changedObjects.every((o) => ALLOW_LIST_CLASSES.has(o.class)) &&
      s.changesAfter !== 'other' &&
      (fieldLock?.changed.length ?? 0) === 0,
    valid: s.valid,
    problems: s.problems,
    recipient_id: known?.recipientId ?? null,
    trust:
      known?.trust ?? (bySeal ? (seal.test ? TEST_SEAL_TRUST : { status: 'installation_seal', reason: null }) : null),
  };
}
