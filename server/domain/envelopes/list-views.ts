/** The compact envelope of GET /envelopes: enough for one row of a list. */
import type { RecipientsTable } from '../../storage/schema.js';
import { createdByView, type CreatedBy } from '../users/creators.js';

// prettier-ignore
export const SUMMARY_COLUMNS = [
  'id', 'title', 'status', 'external_id', 'created_at', 'updated_at', 'sent_at', 'completed_at', 'expires_at',
  'template_id', 'template_version', 'bulk_send_id', 'created_by_user_id',
] as const;

export interface SummaryRow {
  id: string;
  title: string;
  status: string;
  external_id: string | null;
  created_at: string;
  updated_at: string;
  sent_at: string | null;
  completed_at: string | null;
  expires_at: string | null;
  template_id?: string | null;
  template_version?: number | null;
  bulk_send_id?: string | null;
  created_by_user_id?: string | null;
}

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
  updated_at: string;
  sent_at: string | null;
  completed_at: string | null;
  expires_at: string | null;
  template_id: string | null;
  template_version: number | null;
  bulk_send_id: string | null;
  created_by: CreatedBy | null;
  recipients: RecipientSummary[];
}

type RecipientRow = Pick<
  RecipientsTable,
  'id' | 'name' | 'email' | 'role' | 'signature_method' | 'sequence' | 'status'
>;

/** `emails`: the creators' e-mails by user id (read after the page, see list-envelopes.ts). */
export function summaryOf(
  e: SummaryRow,
  recipients: readonly RecipientRow[],
  emails: ReadonlyMap<string, string>,
): EnvelopeSummary {
  return {
    id: e.id,
    title: e.title,
    status: e.status,
    external_id: e.external_id,
    created_at: e.created_at,
    updated_at: e.updated_at,
    sent_at: e.sent_at,
    completed_at: e.completed_at,
    expires_at: e.expires_at,
    template_id: e.template_id ?? null,
    template_version:
      e.template_version === undefined || e.template_version === null ? null : Number(e.template_version),
    bulk_send_id: e.bulk_send_id ?? null,
    created_by: createdByView(e.created_by_user_id, e.created_by_user_id ? emails.get(e.created_by_user_id) : null),
    recipients: recipients.map((r) => ({
      recipient_id: r.id,
      name: r.name,
      email: r.email,
      role: r.role,
      signature_method: r.signature_method,
      sequence: Number(r.sequence),
      status: r.status,
    })),
  };
}
