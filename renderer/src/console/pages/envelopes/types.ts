/** The envelope API's answers as the envelope pages read them (server/http/schemas/envelope-list.ts, envelopes.ts). */

export const ENVELOPE_STATUSES = ['draft', 'sent', 'completed', 'declined', 'voided', 'expired'] as const;
export type EnvelopeStatus = (typeof ENVELOPE_STATUSES)[number];

export interface RecipientSummary {
  recipient_id: string;
  name: string;
  email: string;
  role: string;
  signature_method: string;
  sequence: number;
  status: string;
}

export interface EnvelopeSummary {
  id: string;
  title: string;
  status: string;
  external_id: string | null;
  created_at: string;
  sent_at: string | null;
  completed_at: string | null;
  expires_at: string | null;
  template_id: string | null;
  bulk_send_id: string | null;
  /** The console user who created it; null: an API key or the system. */
  created_by: { user_id: string; email: string } | null;
  recipients: RecipientSummary[];
}

export interface EnvelopeListAnswer {
  envelopes: EnvelopeSummary[];
  next_cursor: string | null;
}

export interface EnvelopeDocument {
  document_id: string;
  filename: string;
  page_count?: number;
  fields: unknown[];
  certified: boolean | null;
  /** SHA-256 as uploaded, and as signed once completed: both remain after retention deleted the bytes. */
  sha256: string;
  final_sha256: string | null;
}

/** PUT {api_base}/envelopes/{id}/legal-hold: retention never deletes the documents while it is set. */
export interface LegalHold {
  placed_at: string;
  placed_by: string | null;
  reason: string | null;
}

export interface Envelope extends EnvelopeSummary {
  routing_order: string;
  message: string | null;
  status_reason: string | null;
  pades_level: string | null;
  template_version: number | null;
  row_index: number | null;
  updated_at: string;
  documents: EnvelopeDocument[];
  /** When the retention policy deleted the documents; null while kept. */
  purged_at: string | null;
  legal_hold: LegalHold | null;
}

export interface AuditEvent {
  seq: number;
  at: string;
  actor_type: string;
  actor_id: string | null;
  action: string;
  details: Record<string, unknown>;
  hash: string;
}

export interface AuditTrail {
  envelope_id: string;
  chain: {
    ok: boolean;
    count: number;
    head_hash: string | null;
    first_bad_seq?: number | null;
    problem?: string | null;
  };
  events: AuditEvent[];
}

export interface RemindAnswer {
  reminded: { recipient_id: string; email: string }[];
  skipped: { recipient_id: string; email: string; reason: string; next_reminder_at: string }[];
}

export interface SigningSession {
  signing_url: string;
  expires_at: string;
}

/** Recipients who can still act: they may be reminded or handed a signing link. */
export const ACTIVE_RECIPIENT_STATUSES = ['active', 'viewed'];
/** Envelopes still going round: they may be reminded or voided. */
export const IN_PROGRESS = ['sent'];
