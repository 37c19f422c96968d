/**
 * The certificate of completion: a separate PDF (never a page added to the signed document) that
 * sums up an envelope: its documents with their SHA-256, every recipient with how and when they acted
 * (method, consent, IP address, user agent, decline reason, order), and the full audit trail with its
 * hashes. The exact events ride along as an embedded file, audit-trail.json, so the chain can be
 * recomputed from the certificate alone (names in scripts Helvetica cannot show are transliterated
 * on the page, never in the attachment). The PDF is sealed with the installation's seal (PAdES,
 * invisible signature): B-B, or B-T and above when a TSA is given.
 *
 * `loadCertificateInput` gathers the input from the database; `createCompletionCertificate` checks
 * the chain (audit_chain_broken when it does not verify: no certificate is issued over a tampered
 * trail), lays it out with pdf/write/new-document and seals it.
 */
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { MoharError } from '../../common/errors.js';
import { certInfo } from '../../pdf/cms/x509.js';
import { signPades, type PadesOptions, type PadesTarget } from '../../pdf/sign/pades.js';
import type { HttpTransport, SignatureProvider } from '../../pdf/sign/ports.js';
import { newTextDocument, type Block } from '../../pdf/write/new-document.js';
import { displayDate } from '../../pdf/write/text.js';
import type { Database } from '../storage/schema.js';
import { canonicalJson, verifyAuditChain, type AuditRow, type ChainReport } from './chain.js';
import { dscFacts, dscLines, type DscFacts } from './dsc-facts.js';
import { listAudit } from './store.js';

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

export interface CertificateOptions {
  readonly signingTime: Date;
  readonly timeZoneOffsetMinutes?: number;
  /** Default B-B, or B-T when tsaUrl and transport are given. */
  readonly level?: PadesTarget;
  readonly tsaUrl?: string;
  readonly transport?: HttpTransport;
  readonly validationData?: PadesOptions['validationData'];
}

export interface CompletionCertificate {
  readonly bytes: Buffer;
  /** SHA-256 (hex) of `bytes`. */
  readonly sha256: string;
  readonly level: PadesTarget;
  /** The chain as checked when the certificate was made (count and head hash). */
  readonly chain: ChainReport;
  /** A file name for downloads and mail attachments. */
  readonly fileName: string;
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
    blocks.push({ text: `${i + 1}. ${d.name}${d.pageCount ? ` (${d.pageCount} page${d.pageCount === 1 ? '' : 's'})` : ''}`, font: 'Helvetica-Bold', spaceBefore: i ? 6 : 0 });
    blocks.push({ text: `Final SHA-256: ${d.finalSha256 ?? 'none (no final document)'}`, font: 'Courier', size: 8, indent: 12 });
    if (d.originalSha256) blocks.push({ text: `Original SHA-256: ${d.originalSha256}`, font: 'Courier', size: 8, indent: 12 });
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
  blocks.push({ text: `${HASH_RULE} The exact events are attached to this PDF as ${AUDIT_ATTACHMENT}.`, size: 8, gray: 0.3, spaceBefore: 4 });
  for (const ev of input.events) {
    blocks.push({ text: `#${ev.seq} · ${when(ev.at, tz)} · ${ev.action}`, font: 'Helvetica-Bold', size: 9, spaceBefore: 7 });
    blocks.push({ text: `By: ${ev.actor_type}${ev.actor_id ? ` ${ev.actor_id}` : ''}`, size: 8, indent: 12 });
    if (ev.details !== '{}') blocks.push({ text: `Details: ${ev.details}`, size: 8, indent: 12 });
    blocks.push({ text: `prev ${ev.prev_hash}`, font: 'Courier', size: 7, indent: 12, gray: 0.3 });
    blocks.push({ text: `hash ${ev.hash}`, font: 'Courier', size: 7, indent: 12 });
  }
  return blocks;
}

/** The exact events, as embedded in the certificate. */
export function auditAttachment(input: CertificateInput): Buffer {
  return Buffer.from(canonicalJson({ format: 'mohar-audit-trail/1', envelope_id: input.envelope.id, hash_rule: HASH_RULE, events: input.events }), 'utf8');
}

/** The unsealed certificate PDF. */
export function certificateDocument(input: CertificateInput, options: CertificateLayoutOptions): Buffer {
  return newTextDocument(certificateBlocks(input, options), {
    info: { title: `Certificate of Completion: ${input.envelope.title}`, subject: `Envelope ${input.envelope.id}`, creator: 'Mohar' },
    creationDate: options.issuedAt,
    footer: (page, pages) => `Certificate of Completion · envelope ${input.envelope.id} · page ${page} of ${pages}`,
    attachments: [{ name: AUDIT_ATTACHMENT, data: auditAttachment(input), mimeType: 'application/json', description: 'The envelope audit trail (exact events and hashes)' }],
  });
}

function sealSubjectOf(seal: SignatureProvider): string | undefined {
  try {
    // certInfo keeps the parsed certificate for as long as the seal holds its bytes: not parsed per certificate.
    return certInfo(seal.certificate).subject;
  } catch {
    return undefined;
  }
}

/**
 * Checks the trail, lays out the certificate and seals it.
 * Throws audit_chain_broken when the events do not verify (or belong to another envelope); signing
 * errors come from signPades (tsa_unavailable, signing_key_invalid, validation_data_unavailable…).
 */
export async function createCompletionCertificate(input: CertificateInput, seal: SignatureProvider, options: CertificateOptions): Promise<CompletionCertificate> {
  const chain = verifyAuditChain(input.events);
  if (!chain.ok) {
    throw new MoharError('audit_chain_broken', `the audit trail of envelope ${input.envelope.id} does not verify at seq ${chain.firstBadSeq}: ${chain.message}`, {
      extra: { envelope_id: input.envelope.id, first_bad_seq: chain.firstBadSeq, reason: chain.reason },
    });
  }
  const stranger = input.events.find((ev) => ev.envelope_id !== input.envelope.id);
  if (stranger) throw new MoharError('audit_chain_broken', `the audit events given belong to envelope ${stranger.envelope_id}, not ${input.envelope.id}`);

  const sealSubject = sealSubjectOf(seal);
  const unsigned = certificateDocument(input, {
    issuedAt: options.signingTime,
    ...(options.timeZoneOffsetMinutes === undefined ? {} : { timeZoneOffsetMinutes: options.timeZoneOffsetMinutes }),
    ...(sealSubject === undefined ? {} : { sealSubject }),
  });
  const level: PadesTarget = options.level ?? (options.tsaUrl && options.transport ? 'B-T' : 'B-B');
  const signed = await signPades(unsigned, seal, {
    level,
    field: { invisible: true, name: 'MoharSeal' },
    signingTime: options.signingTime,
    reason: 'Certificate of completion',
    ...(options.timeZoneOffsetMinutes === undefined ? {} : { timeZoneOffsetMinutes: options.timeZoneOffsetMinutes }),
    ...(options.tsaUrl === undefined ? {} : { tsaUrl: options.tsaUrl }),
    ...(options.transport === undefined ? {} : { transport: options.transport }),
    ...(options.validationData === undefined ? {} : { validationData: options.validationData }),
  });
  return {
    bytes: signed.bytes,
    sha256: createHash('sha256').update(signed.bytes).digest('hex'),
    level: signed.level,
    chain,
    fileName: `certificate-of-completion-${input.envelope.id}.pdf`,
  };
}

// ------------------------------------------------------------------ from the database

type Details = Record<string, unknown>;

function parseDetails(row: AuditRow): Details {
  try {
    const value = JSON.parse(row.details) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Details) : {};
  } catch {
    return {};
  }
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

const ACTS = new Set(['recipient.signed', 'recipient.approved', 'recipient.reviewed', 'recipient.declined']);

/** What the trail says about one recipient (conventions: server/audit/README.md). */
function recipientFacts(recipientId: string, events: readonly { row: AuditRow; details: Details }[]) {
  const mine = events.filter((e) => (e.row.actor_type === 'recipient' && e.row.actor_id === recipientId) || e.details.recipient_id === recipientId);
  const act = mine.filter((e) => ACTS.has(e.row.action)).at(-1);
  const withNetwork = act && (str(act.details.ip) || str(act.details.user_agent)) ? act : mine.filter((e) => str(e.details.ip) || str(e.details.user_agent)).at(-1);
  let consentAt: string | undefined;
  for (const e of mine) {
    const consent = e.details.consent;
    const at =
      str(e.details.consent_at) ??
      (typeof consent === 'object' && consent !== null ? str((consent as Details).at) : undefined) ??
      (e.row.action === 'recipient.consented' ? e.row.at : undefined);
    if (at) consentAt = at;
  }
  const declined = mine.filter((e) => e.row.action === 'recipient.declined').at(-1);
  return {
    actedAt: act?.row.at ?? null,
    method: act ? str(act.details.method) : undefined,
    consentAt: consentAt ?? null,
    ip: withNetwork ? (str(withNetwork.details.ip) ?? null) : null,
    userAgent: withNetwork ? (str(withNetwork.details.user_agent) ?? null) : null,
    declineReason: declined ? (str(declined.details.reason) ?? str(declined.details.decline_reason) ?? null) : null,
    certificateSubject: act ? (str(act.details.certificate_subject) ?? null) : null,
    dsc: act ? dscFacts(act.details) : null,
  };
}

export interface LoadCertificateOptions {
  /** Only an envelope of this account (else envelope_not_found). */
  readonly accountId?: string;
  /** Final SHA-256 per document id; default: from the document.sealed events. */
  readonly finalSha256?: Readonly<Record<string, string>>;
}

/**
 * Gathers the certificate's input: the envelope, its documents and recipients, and its audit trail;
 * per recipient facts (consent, IP, user agent, decline reason) come from the trail's details.
 */
export async function loadCertificateInput(db: Kysely<Database>, envelopeId: string, options: LoadCertificateOptions = {}): Promise<CertificateInput> {
  let query = db
    .selectFrom('envelopes')
    .innerJoin('accounts', 'accounts.id', 'envelopes.account_id')
    .select(['envelopes.id', 'envelopes.title', 'envelopes.status', 'envelopes.created_at', 'accounts.name as sender'])
    .where('envelopes.id', '=', envelopeId);
  if (options.accountId !== undefined) query = query.where('envelopes.account_id', '=', options.accountId);
  const envelope = await query.executeTakeFirst();
  if (!envelope) throw new MoharError('envelope_not_found', `no envelope ${envelopeId}`);

  const [recipients, documents, events] = await Promise.all([
    db.selectFrom('recipients').select(['id', 'name', 'email', 'role', 'signature_method', 'sequence', 'status']).where('envelope_id', '=', envelopeId).orderBy('position').execute(),
    db
      .selectFrom('envelope_documents')
      .innerJoin('documents', 'documents.id', 'envelope_documents.document_id')
      .select(['documents.id', 'documents.filename', 'documents.page_count', 'documents.sha256'])
      .where('envelope_documents.envelope_id', '=', envelopeId)
      .orderBy('envelope_documents.position')
      .execute(),
    listAudit(db, envelopeId),
  ]);
  const parsed = events.map((row) => ({ row, details: parseDetails(row) }));

  const sealed = parsed.filter((e) => e.row.action === 'document.sealed');
  const finalOf = (documentId: string): string | null => {
    const given = options.finalSha256?.[documentId];
    if (given) return given;
    const hit = sealed.filter((e) => e.details.document_id === documentId || (documents.length === 1 && e.details.document_id === undefined)).at(-1);
    return hit ? (str(hit.details.document_sha256) ?? str(hit.details.sha256) ?? null) : null;
  };

  return {
    envelope: {
      id: envelope.id,
      title: envelope.title,
      status: envelope.status,
      createdAt: envelope.created_at,
      completedAt: parsed.filter((e) => e.row.action === 'envelope.completed').at(-1)?.row.at ?? null,
      sender: envelope.sender,
    },
    documents: documents.map((d) => ({ name: d.filename, pageCount: d.page_count, originalSha256: d.sha256, finalSha256: finalOf(d.id) })),
    recipients: recipients.map((r) => {
      const facts = recipientFacts(r.id, parsed);
      return {
        name: r.name,
        email: r.email,
        role: r.role,
        method: facts.method ?? r.signature_method,
        status: r.status,
        order: r.sequence,
        actedAt: facts.actedAt,
        consentAt: facts.consentAt,
        ip: facts.ip,
        userAgent: facts.userAgent,
        declineReason: facts.declineReason,
        certificateSubject: facts.certificateSubject,
        dsc: facts.dsc,
      };
    }),
    events,
  };
}
