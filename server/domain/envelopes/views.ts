/** The JSON shapes of envelopes, recipients and fields as the API returns them. */
import type { Kysely } from 'kysely';
import type { Database, DataMode, EnvelopesTable, FieldsTable, RecipientsTable } from '../../storage/schema.js';
import { documentView, type DocumentView } from '../documents/documents.js';
import { createdByView, type CreatedBy } from '../users/creators.js';
import { parseReminderSettings, type ReminderSettings } from '../workflow/reminder-settings.js';
import { envelopeFieldRows } from './field-rows.js';

export interface RecipientView {
  recipient_id: string;
  name: string;
  email: string;
  role: string;
  signature_method: string;
  sequence: number;
  status: string;
}

export interface FieldView {
  field_id: string;
  recipient_id: string;
  field_type: number;
  page_number: number;
  x: number;
  y: number;
  width: number;
  height: number;
  label: string | null;
  value: string | null;
  options: string[] | null;
  pdf_signature_field: string | null;
  required: boolean;
  /** A pre-assigned value the signer may change (false: read-only for them). */
  editable: boolean;
}

export interface EnvelopeDocumentView extends DocumentView {
  fields: FieldView[];
  /** Certified at send (DocMDP P=2 by the installation seal); null while a draft. */
  certified: boolean | null;
  /** Why it was not certified at send. */
  certification_skipped: string | null;
  /** SHA-256 of the signed document once the envelope is completed (kept when retention purges the bytes). */
  final_sha256: string | null;
}

/** A legal hold: retention never purges the envelope while it is set (domain/retention/legal-hold.ts). */
export interface LegalHoldView {
  placed_at: string;
  /** "user:<id>" or "api_key:<id>". */
  placed_by: string | null;
  reason: string | null;
}

export interface EnvelopeView {
  id: string;
  title: string;
  status: string;
  external_id: string | null;
  routing_order: string;
  message: string | null;
  expire_in_days: number | null;
  redirect_url: string | null;
  metadata: Record<string, unknown> | null;
  recipients: RecipientView[];
  documents: EnvelopeDocumentView[];
  sent_at: string | null;
  completed_at: string | null;
  expires_at: string | null;
  /** Why it was voided or declined. */
  status_reason: string | null;
  /** The PAdES level the completed documents reached (the weakest of their signatures). */
  pades_level: string | null;
  /** The template and version it was instantiated from; null when made otherwise. */
  template_id: string | null;
  template_version: number | null;
  /** The bulk send and row it was made for; null when made otherwise. */
  bulk_send_id: string | null;
  row_index: number | null;
  /** The console user who created it; null when made with an API key or by the system (issue 15). */
  created_by: CreatedBy | null;
  /** email, or none when Mohar mails no recipient (send_mail 0). */
  delivery: 'email' | 'none';
  /** Its own automatic reminders; null: the account's defaults apply (workflow/reminder-settings.ts). */
  reminders: ReminderSettings | null;
  mode: DataMode;
  /** When retention deleted its documents; null while they are kept. */
  purged_at: string | null;
  legal_hold: LegalHoldView | null;
  created_at: string;
  updated_at: string;
}

export function recipientView(
  r: Pick<RecipientsTable, 'id' | 'name' | 'email' | 'role' | 'signature_method' | 'sequence' | 'status'>,
): RecipientView {
  return {
    recipient_id: r.id,
    name: r.name,
    email: r.email,
    role: r.role,
    signature_method: r.signature_method,
    sequence: r.sequence,
    status: r.status,
  };
}

export function fieldView(f: FieldsTable): FieldView {
  return {
    field_id: f.id,
    recipient_id: f.recipient_id,
    field_type: f.field_type,
    page_number: f.page_number,
    x: f.x,
    y: f.y,
    width: f.width,
    height: f.height,
    label: f.label,
    value: f.value,
    options: f.options === null ? null : (JSON.parse(f.options) as string[]),
    pdf_signature_field: f.pdf_signature_field,
    required: f.required === 1,
    editable: f.editable === 1,
  };
}

/** Loads the full view of an envelope already known to belong to the caller's account. */
export async function loadEnvelopeView(db: Kysely<Database>, envelopeId: string): Promise<EnvelopeView> {
  const [envelope, recipients, documents, fields] = await Promise.all([
    db
      .selectFrom('envelopes')
      .leftJoin('users', 'users.id', 'envelopes.created_by_user_id')
      .selectAll('envelopes')
      .select('users.email as created_by_email')
      .where('envelopes.id', '=', envelopeId)
      .executeTakeFirstOrThrow(),
    db.selectFrom('recipients').selectAll().where('envelope_id', '=', envelopeId).orderBy('position').execute(),
    db
      .selectFrom('envelope_documents')
      .innerJoin('documents', 'documents.id', 'envelope_documents.document_id')
      .select([
        'documents.id',
        'documents.filename',
        'documents.sha256',
        'documents.size',
        'documents.page_count',
        'documents.info',
        'documents.created_at',
        'envelope_documents.certified',
        'envelope_documents.certification_skipped',
        'envelope_documents.current_sha256',
      ])
      .where('envelope_documents.envelope_id', '=', envelopeId)
      .orderBy('envelope_documents.position')
      .execute(),
    envelopeFieldRows(db, envelopeId),
  ]);
  return envelopeView(
    envelope,
    recipients.map(recipientView),
    documents.map((d) => ({
      ...documentView(d),
      fields: fields.filter((f) => f.document_id === d.id).map(fieldView),
      certified: d.certified === null ? null : d.certified === 1,
      certification_skipped: d.certification_skipped,
      final_sha256: envelope.status === 'completed' ? d.current_sha256 : null,
    })),
  );
}

export type EnvelopeRow = Omit<EnvelopesTable, 'events_seq'>;

/** `created_by_email`: the creating user's e-mail (read with the row); absent or null without a creator. */
export function envelopeView(
  envelope: EnvelopeRow & { created_by_email?: string | null },
  recipients: RecipientView[],
  documents: EnvelopeDocumentView[],
): EnvelopeView {
  return {
    id: envelope.id,
    title: envelope.title,
    status: envelope.status,
    external_id: envelope.external_id,
    routing_order: envelope.routing_order,
    message: envelope.message,
    expire_in_days: envelope.expire_in_days,
    redirect_url: envelope.redirect_url,
    metadata: envelope.metadata === null ? null : (JSON.parse(envelope.metadata) as Record<string, unknown>),
    recipients,
    documents,
    sent_at: envelope.sent_at,
    completed_at: envelope.completed_at,
    expires_at: envelope.expires_at,
    status_reason: envelope.status_reason,
    pades_level: envelope.pades_level,
    template_id: envelope.template_id ?? null,
    template_version:
      envelope.template_version === undefined || envelope.template_version === null
        ? null
        : Number(envelope.template_version),
    bulk_send_id: envelope.bulk_send_id ?? null,
    row_index: envelope.row_index === undefined || envelope.row_index === null ? null : Number(envelope.row_index),
    created_by: createdByView(envelope.created_by_user_id, envelope.created_by_email),
    delivery: envelope.send_mail === 0 ? 'none' : 'email',
    reminders: parseReminderSettings(envelope.reminders ?? null),
    mode: envelope.mode ?? 'live',
    purged_at: envelope.purged_at ?? null,
    legal_hold: envelope.legal_hold_at
      ? {
          placed_at: envelope.legal_hold_at,
          placed_by: envelope.legal_hold_by ?? null,
          reason: envelope.legal_hold_reason ?? null,
        }
      : null,
    created_at: envelope.created_at,
    updated_at: envelope.updated_at,
  };
}
