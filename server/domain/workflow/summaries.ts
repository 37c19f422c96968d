/** The small envelope and recipient shapes carried in events and audit entries. */
import type { EnvelopesTable, RecipientsTable } from '../../storage/schema.js';

export function envelopeSummary(
  e: Pick<EnvelopesTable, 'id' | 'title' | 'status' | 'external_id' | 'metadata' | 'template_id' | 'template_version'> &
    Partial<Pick<EnvelopesTable, 'bulk_send_id' | 'row_index' | 'mode'>>,
): Record<string, unknown> {
  const summary: Record<string, unknown> = {
    id: e.id,
    title: e.title,
    status: e.status,
    external_id: e.external_id,
    metadata: e.metadata === null ? null : (JSON.parse(e.metadata) as unknown),
  };
  // Envelopes made from a template say which version they are pinned to (issue 12).
  if (e.template_id) {
    Object.assign(summary, { template_id: e.template_id, template_version: Number(e.template_version) });
  }
  // Envelopes of a bulk send say which batch and row (issue 13).
  if (e.bulk_send_id) Object.assign(summary, { bulk_send_id: e.bulk_send_id, row_index: Number(e.row_index) });
  // A test envelope's events say so (issue 16): the account's one endpoint receives both modes.
  if (e.mode === 'test') summary.test = true;
  return summary;
}

export function recipientSummary(
  r: Pick<RecipientsTable, 'id' | 'name' | 'email' | 'role' | 'signature_method' | 'sequence' | 'status'>,
): Record<string, unknown> {
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
