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
import type { EnvelopeAuditAction } from '../../common/audit-actions.js';
import {
  certInfo,
  signPades,
  type HttpTransport,
  type PadesOptions,
  type PadesTarget,
  type SignatureProvider,
} from '../../pdf/index.js';
import type { Database } from '../storage/schema.js';
import { certificateDocument, type CertificateInput, type CertificateLayoutOptions } from './certificate-layout.js';
import { verifyAuditChain, type AuditRow, type ChainReport } from './chain.js';
import { dscFacts } from './dsc-facts.js';
import { listAudit } from './store.js';

export {
  AUDIT_ATTACHMENT,
  auditAttachment,
  certificateBlocks,
  certificateDocument,
  prepareCertificate,
} from './certificate-layout.js';
export type {
  CertificateDocument,
  CertificateInput,
  CertificateLayoutOptions,
  CertificateRecipient,
} from './certificate-layout.js';

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

function sealSubjectOf(seal: SignatureProvider): string | undefined {
  try {
    // certInfo keeps the parsed certificate for as long as the seal holds its bytes: not parsed per certificate.
    return certInfo(seal.certificate).subject;
  } catch {
    return undefined;
  }
}

/**
 * No certificate over a tampered trail: the events must verify and belong to the envelope (else audit_chain_broken).
 */
export function checkCertificateTrail(input: CertificateInput): ChainReport {
  const chain = verifyAuditChain(input.events);
  if (!chain.ok) {
    throw new MoharError(
      'audit_chain_broken',
      `the audit trail of envelope ${input.envelope.id} does not verify at seq ${chain.firstBadSeq}: ${chain.message}`,
      {
        extra: { envelope_id: input.envelope.id, first_bad_seq: chain.firstBadSeq, reason: chain.reason },
      },
    );
  }
  const stranger = input.events.find((ev) => ev.envelope_id !== input.envelope.id);
  if (stranger) {
    throw new MoharError(
      'audit_chain_broken',
      `the audit events given belong to envelope ${stranger.envelope_id}, not ${input.envelope.id}`,
    );
  }
  return chain;
}

/** What the certificate shows of its seal, and the seal's PAdES signature on it. */
export function certificateSealing(
  seal: SignatureProvider,
  options: CertificateOptions,
): { layout: CertificateLayoutOptions; pades: PadesOptions } {
  const sealSubject = sealSubjectOf(seal);
  const zone =
    options.timeZoneOffsetMinutes === undefined ? {} : { timeZoneOffsetMinutes: options.timeZoneOffsetMinutes };
  return {
    layout: { issuedAt: options.signingTime, ...zone, ...(sealSubject === undefined ? {} : { sealSubject }) },
    pades: {
      level: options.level ?? (options.tsaUrl && options.transport ? 'B-T' : 'B-B'),
      field: { invisible: true, name: 'MoharSeal' },
      signingTime: options.signingTime,
      reason: 'Certificate of completion',
      ...zone,
      ...(options.tsaUrl === undefined ? {} : { tsaUrl: options.tsaUrl }),
      ...(options.transport === undefined ? {} : { transport: options.transport }),
      ...(options.validationData === undefined ? {} : { validationData: options.validationData }),
    },
  };
}

/** The sealed certificate's description. */
export function completionCertificate(
  input: CertificateInput,
  bytes: Buffer,
  level: PadesTarget,
  chain: ChainReport,
): CompletionCertificate {
  return {
    bytes,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    level,
    chain,
    fileName: `certificate-of-completion-${input.envelope.id}.pdf`,
  };
}

/**
 * Checks the trail, lays out the certificate and seals it, all on this thread (the completion job does
 * the PDF work in the worker pool instead: server/domain/workflow/certificate-off-loop.ts).
 * Throws audit_chain_broken when the events do not verify (or belong to another envelope); signing
 * errors come from signPades (tsa_unavailable, signing_key_invalid, validation_data_unavailable…).
 */
export async function createCompletionCertificate(
  input: CertificateInput,
  seal: SignatureProvider,
  options: CertificateOptions,
): Promise<CompletionCertificate> {
  const chain = checkCertificateTrail(input);
  const { layout, pades } = certificateSealing(seal, options);
  const signed = await signPades(certificateDocument(input, layout), seal, pades);
  return completionCertificate(input, signed.bytes, signed.level, chain);
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

/** A recipient's act (server/audit/README.md), spelled from the shared list so a renamed action does not compile. */
const ACTS: ReadonlySet<string> = new Set<EnvelopeAuditAction>([
  'recipient.signed',
  'recipient.approved',
  'recipient.reviewed',
  'recipient.declined',
]);

/** What the trail says about one recipient (conventions: server/audit/README.md). */
function recipientFacts(recipientId: string, events: readonly { row: AuditRow; details: Details }[]) {
  const mine = events.filter(
    (e) =>
      (e.row.actor_type === 'recipient' && e.row.actor_id === recipientId) || e.details.recipient_id === recipientId,
  );
  const act = mine.filter((e) => ACTS.has(e.row.action)).at(-1);
  const withNetwork =
    act && (str(act.details.ip) || str(act.details.user_agent))
      ? act
      : mine.filter((e) => str(e.details.ip) || str(e.details.user_agent)).at(-1);
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
    reachedBy: act ? (str(act.details.reached_by) ?? null) : null,
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
export async function loadCertificateInput(
  db: Kysely<Database>,
  envelopeId: string,
  options: LoadCertificateOptions = {},
): Promise<CertificateInput> {
  let query = db
    .selectFrom('envelopes')
    .innerJoin('accounts', 'accounts.id', 'envelopes.account_id')
    .select(['envelopes.id', 'envelopes.title', 'envelopes.status', 'envelopes.created_at', 'accounts.name as sender'])
    .where('envelopes.id', '=', envelopeId);
  if (options.accountId !== undefined) query = query.where('envelopes.account_id', '=', options.accountId);
  const envelope = await query.executeTakeFirst();
  if (!envelope) throw new MoharError('envelope_not_found', `no envelope ${envelopeId}`);

  const [recipients, documents, events] = await Promise.all([
    db
      .selectFrom('recipients')
      .select(['id', 'name', 'email', 'role', 'signature_method', 'sequence', 'status'])
      .where('envelope_id', '=', envelopeId)
      .orderBy('position')
      .execute(),
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
    const hit = sealed
      .filter(
        (e) => e.details.document_id === documentId || (documents.length === 1 && e.details.document_id === undefined),
      )
      .at(-1);
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
    documents: documents.map((d) => ({
      name: d.filename,
      pageCount: d.page_count,
      originalSha256: d.sha256,
      finalSha256: finalOf(d.id),
    })),
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
        reachedBy: facts.reachedBy,
        declineReason: facts.declineReason,
        certificateSubject: facts.certificateSubject,
        dsc: facts.dsc,
      };
    }),
    events,
  };
}
