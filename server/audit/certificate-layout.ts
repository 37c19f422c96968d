/**
 * The certificate of completion's content and layout (see certificate.ts for what it is and how it is
 * sealed): plain data in, the unsealed PDF out. Kept apart from the database and the seal so that the PDF
 * work can run in the PDF worker pool (server/domain/documents/pdf-tasks.ts prepareCertificate).
 */
import {
  displayDate,
  newTextDocument,
  prepareSignature,
  type Block,
  type PreparedSignature,
  type PrepareOptions,
} from '../../pdf/index.js';
import { canonicalJson, verifyAuditChain, type AuditRow } from './chain.js';
import { dscLines, type DscFacts } from './dsc-facts.js';

export interface CertificateRecipient {
  readonly name: string;
  readonly email: string;
  readonly role: string;
  /** Signature method: electronic, aadhaar, dsc, review. */
  readonly method: string;
  readonly status: string;
  /** Routing order (1 = first). */
  readonly order: number;
  /** When the recipient signed, approved, reviewed or declined (ISO-8601). */
  readonly actedAt?: string | null;
  /** When the recipient agreed to sign electronically (ISO-8601). */
  readonly consentAt?: string | null;
  readonly ip?: string | null;
  readonly userAgent?: string | null;
  /** How the recipient was reached for the act (mail_link, signing_session, legacy_link, sandbox_link). */
  readonly reachedBy?: string | null;
  readonly declineReason?: string | null;
  /** Subject of the signing certificate (DSC, Aadhaar eSign). */
  readonly certificateSubject?: string | null;
  /** The USB DSC certificate and its validation (DSC acts only). */
  readonly dsc?: DscFacts | null;
}

export interface CertificateDocument {
  readonly name: string;
  readonly pageCount?: number | null;
  /** SHA-256 of the document as uploaded. */
  readonly originalSha256?: string | null;
  /** SHA-256 of the final (signed, sealed) document; null when there is none (voided, declined). */
  readonly finalSha256: string | null;
}

export interface CertificateInput {
  readonly envelope: {
    readonly id: string;
    readonly title: string;
    readonly status: string;
    readonly createdAt: string;
    readonly completedAt: string | null;
    readonly sender?: string | null;
  };
  readonly documents: readonly CertificateDocument[];
  readonly recipients: readonly CertificateRecipient[];
  /** The envelope's whole audit trail in seq order (listAudit). */
  readonly events: readonly AuditRow[];
}

export interface CertificateLayoutOptions {
  /** The time the certificate is issued (shown; also the seal's signing time). */
  readonly issuedAt: Date;
  /** Times are shown at this UTC offset, in minutes east (330 for IST). Default 0. */
  readonly timeZoneOffsetMinutes?: number;
  /** Shown as "Sealed by". */
  readonly sealSubject?: string;
}

/** The embedded file's name. */
export const AUDIT_ATTACHMENT = 'audit-trail.json';

const HASH_RULE =
  'Each event hash is SHA-256 of the canonical JSON (RFC 8785) of the event columns account_id, action, actor_id, actor_type, at, details, envelope_id, prev_hash and seq; prev_hash is the hash of the event before (64 zeros for the first).';

function when(iso: string | null | undefined, offset: number): string {
  if (!iso) return 'not recorded';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : displayDate(date, offset);
}

const ACTED: Record<string, string> = { signer: 'Signed', approver: 'Approved', reviewer: 'Reviewed', cc: 'Received' };

/** The certificate's content as text blocks (exported for tests and previews). */
export function certificateBlocks(input: CertificateInput, options: CertificateLayoutOptions): Block[] {
  const tz = options.timeZoneOffsetMinutes ?? 0;
  const e = input.envelope;
  const chain = verifyAuditChain(input.events);
  const blocks: Block[] = [];
  const heading = (text: string): void => {
    blocks.push({ text, font: 'Helvetica-Bold', size: 12, spaceBefore: 14 }, { rule: true, spaceBefore: 2 });
  };
  const field = (label: string, value: string, indent = 0): void => {
    blocks.push({ text: `${label}: ${value}`, indent });
  };

  blocks.push({ text: 'Certificate of Completion', font: 'Helvetica-Bold', size: 20 });
  blocks.push({ text: e.title, font: 'Helvetica', size: 13, spaceBefore: 4 });

  heading('Envelope');
  field('Envelope ID', e.id);
  field('Status', e.status);
  if (e.sender) field('Sender', e.sender);
  field('Created', when(e.createdAt, tz));
  field('Completed', e.completedAt ? when(e.completedAt, tz) : 'not completed');
  field('Certificate issued', displayDate(options.issuedAt, tz));
  if (options.sealSubject) field('Sealed by', options.sealSubject);

  heading('Documents');
  input.documents.forEach((d, i) => {
    blocks.push({
      text: `${i + 1}. ${d.name}${d.pageCount ? ` (${d.pageCount} page${d.pageCount === 1 ? '' : 's'})` : ''}`,
      font: 'Helvetica-Bold',
      spaceBefore: i ? 6 : 0,
    });
    blocks.push({
      text: `Final SHA-256: ${d.finalSha256 ?? 'none (no final document)'}`,
      font: 'Courier',
      size: 8,
      indent: 12,
    });
    if (d.originalSha256) {
      blocks.push({ text: `Original SHA-256: ${d.originalSha256}`, font: 'Courier', size: 8, indent: 12 });
    }
  });
  if (input.documents.length === 0) blocks.push({ text: 'No documents.' });

  heading('Recipients');
  [...input.recipients]
    .sort((a, b) => a.order - b.order)
    .forEach((r, i) => {
      blocks.push({ text: `${r.order}. ${r.name} <${r.email}>`, font: 'Helvetica-Bold', spaceBefore: i ? 8 : 0 });
      field('Role', `${r.role} · Method: ${r.method} · Status: ${r.status} · Order: ${r.order}`, 12);
      if (r.declineReason || r.status === 'declined') field('Declined', when(r.actedAt, tz), 12);
      else field(ACTED[r.role] ?? 'Acted', when(r.actedAt, tz), 12);
      field('Consent to sign electronically', when(r.consentAt, tz), 12);
      field('IP address', r.ip ?? 'not recorded', 12);
      field('User agent', r.userAgent ?? 'not recorded', 12);
      if (r.reachedBy) field('Reached by', r.reachedBy.replace(/_/g, ' '), 12);
      if (r.dsc) for (const [label, value] of dscLines(r.dsc, (t) => when(t, tz))) field(label, value, 12);
      else if (r.certificateSubject) field('Signing certificate', r.certificateSubject, 12);
      if (r.declineReason) field('Decline reason', r.declineReason, 12);
    });
  if (input.recipients.length === 0) blocks.push({ text: 'No recipients.' });

  heading('Audit trail');
  blocks.push({
    text: chain.ok
      ? `${chain.count} event${chain.count === 1 ? '' : 's'}; the hash chain verifies.${chain.headHash ? ' Last hash:' : ''}`
      : `THE HASH CHAIN DOES NOT VERIFY at seq ${chain.firstBadSeq}: ${chain.message}`,
    font: chain.ok ? 'Helvetica' : 'Helvetica-Bold',
  });
  if (chain.headHash) blocks.push({ text: chain.headHash, font: 'Courier', size: 8 });
  blocks.push({
    text: `${HASH_RULE} The exact events are attached to this PDF as ${AUDIT_ATTACHMENT}.`,
    size: 8,
    gray: 0.3,
    spaceBefore: 4,
  });
  for (const ev of input.events) {
    blocks.push({
      text: `#${ev.seq} · ${when(ev.at, tz)} · ${ev.action}`,
      font: 'Helvetica-Bold',
      size: 9,
      spaceBefore: 7,
    });
    blocks.push({ text: `By: ${ev.actor_type}${ev.actor_id ? ` ${ev.actor_id}` : ''}`, size: 8, indent: 12 });
    if (ev.details !== '{}') blocks.push({ text: `Details: ${ev.details}`, size: 8, indent: 12 });
    blocks.push({ text: `prev ${ev.prev_hash}`, font: 'Courier', size: 7, indent: 12, gray: 0.3 });
    blocks.push({ text: `hash ${ev.hash}`, font: 'Courier', size: 7, indent: 12 });
  }
  return blocks;
}

/** The exact events, as embedded in the certificate. */
export function auditAttachment(input: CertificateInput): Buffer {
  return Buffer.from(
    canonicalJson({
      format: 'mohar-audit-trail/1',
      envelope_id: input.envelope.id,
      hash_rule: HASH_RULE,
      events: input.events,
    }),
    'utf8',
  );
}

/** The unsealed certificate PDF. */
export function certificateDocument(input: CertificateInput, options: CertificateLayoutOptions): Buffer {
  return newTextDocument(certificateBlocks(input, options), {
    info: {
      title: `Certificate of Completion: ${input.envelope.title}`,
      subject: `Envelope ${input.envelope.id}`,
      creator: 'Mohar',
    },
    creationDate: options.issuedAt,
    footer: (page, pages) => `Certificate of Completion · envelope ${input.envelope.id} · page ${page} of ${pages}`,
    attachments: [
      {
        name: AUDIT_ATTACHMENT,
        data: auditAttachment(input),
        mimeType: 'application/json',
        description: 'The envelope audit trail (exact events and hashes)',
      },
    ],
  });
}

/** The unsealed certificate with the seal's signature revision appended, up to the digest the seal signs. */
export function prepareCertificate(
  input: CertificateInput,
  layout: CertificateLayoutOptions,
  options: PrepareOptions,
): PreparedSignature {
  return prepareSignature(certificateDocument(input, layout), options);
}
