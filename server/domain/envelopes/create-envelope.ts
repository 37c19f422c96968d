/**
 * POST /envelopes: a draft with optional recipients and the first row of its audit trail, in one
 * transaction. On SQLite the same rows go through the fast path (storage/sqlite-fast-path.ts): prepared
 * statements, and one commit shared with the other creates of the same moment (group commit).
 */
import { MoharError } from '../../../common/errors.js';
import { isUniqueViolation } from '../../storage/connect.js';
import type { EnvelopeDocumentsTable, EnvelopesTable, FieldsTable, RecipientsTable } from '../../storage/schema.js';
import { firstAuditRow } from '../../audit/index.js';
import { iso, type Context } from '../context.js';
import { newId } from '../ids.js';
import { checkDscLimits } from './dsc-rules.js';
import type { EnvelopeInput } from './model.js';
import { normalizeRecipient } from './recipients.js';
import { searchRowsOf } from './search-terms.js';
import { envelopeView, recipientView, type EnvelopeView } from './views.js';

export const MAX_METADATA_BYTES = 16 * 1024;

export function checkRedirectUrl(url: string | undefined, path: string): void {
  if (url === undefined) return;
  const protocol = URL.canParse(url) ? new URL(url).protocol : '';
  if (protocol !== 'https:' && protocol !== 'http:') {
    throw new MoharError('validation_failed', `${path} must be an http(s) URL`, { errors: [{ path, message: 'must be an http(s) URL' }] });
  }
}

/** The template version an envelope is instantiated from (POST /templates/{id}/instantiate). */
export interface TemplatePin {
  readonly template_id: string;
  readonly template_version: number;
}

/** The bulk send row an envelope is made for: UNIQUE (bulk_send_id, row_index) makes it at most one envelope. */
export interface BulkOrigin {
  readonly bulk_send_id: string;
  readonly row_index: number;
}

/**
 * Rows written with the draft, in the same commit: the documents and fields of an instantiated template
 * (all or nothing). `fields` gets the new recipients (their ids exist only now) and may throw
 * invalid_field_layout before anything is written.
 */
export interface DraftContents {
  readonly documents: readonly Pick<EnvelopeDocumentsTable, 'envelope_id' | 'document_id' | 'position' | 'created_at'>[];
  readonly fields: (recipients: readonly RecipientsTable[], envelopeId: string) => FieldsTable[];
}

export async function createEnvelope(ctx: Context, accountId: string, input: EnvelopeInput, pin?: TemplatePin, origin?: BulkOrigin, contents?: (envelopeId: string, at: string) => DraftContents): Promise<EnvelopeView> {
  checkRedirectUrl(input.redirect_url, '/redirect_url');
  const metadata = input.metadata === undefined ? null : JSON.stringify(input.metadata);
  if (metadata !== null && Buffer.byteLength(metadata) > MAX_METADATA_BYTES) {
    throw new MoharError('validation_failed', `metadata is larger than ${MAX_METADATA_BYTES} bytes`, { errors: [{ path: '/metadata', message: 'too large' }] });
  }
  const id = newId();
  const at = iso(ctx.now());
  const routing = input.routing_order ?? 'sequential';
  const recipients: RecipientsTable[] = [];
  (input.recipients ?? []).forEach((r, index) => recipients.push(normalizeRecipient(r, routing, recipients, id, index + 1, at, index)));
  const extra = contents?.(id, at);
  checkDscLimits({ recipients, documentCount: extra?.documents.length ?? 0 });
  const fields = extra?.fields(recipients, id) ?? [];
  const envelope: Omit<EnvelopesTable, 'events_seq'> = {
    id,
    account_id: accountId,
    title: input.title.trim(),
    status: 'draft',
    external_id: input.external_id ?? null,
    routing_order: routing,
    message: input.message ?? null,
    expire_in_days: input.expire_in_days ?? null,
    redirect_url: input.redirect_url ?? null,
    metadata,
    created_at: at,
    updated_at: at,
    sent_at: null,
    completed_at: null,
    expires_at: null,
    status_reason: null,
    pades_level: null,
    certificate_sha256: null,
    ...(pin ? { template_id: pin.template_id, template_version: pin.template_version } : {}),
    ...(origin ? { bulk_send_id: origin.bulk_send_id, row_index: origin.row_index } : {}),
  };
  const search = searchRowsOf({ ...envelope, recipients });
  const stored = { ...envelope, search_text: search.searchText };
  const audit = firstAuditRow({ envelopeId: id, accountId, actorType: 'api_key', action: 'envelope.created', details: { title: envelope.title, recipients: recipients.length, ...(pin ?? {}) }, at });
  try {
    const fast = ctx.sqlite;
    if (fast) {
      await fast.write(() => {
        fast.insert('envelopes', stored);
        for (const recipient of recipients) fast.insert('recipients', recipient);
        for (const term of search.terms) fast.insert('envelope_search_terms', term);
        for (const document of extra?.documents ?? []) fast.insert('envelope_documents', document);
        for (const field of fields) fast.insert('fields', field);
        fast.insert('audit_events', audit);
      });
    } else {
      await ctx.db.transaction().execute(async (trx) => {
        await trx.insertInto('envelopes').values(stored).execute();
        if (recipients.length > 0) await trx.insertInto('recipients').values(recipients).execute();
        if (search.terms.length > 0) await trx.insertInto('envelope_search_terms').values(search.terms).execute();
        if (extra && extra.documents.length > 0) await trx.insertInto('envelope_documents').values([...extra.documents]).execute();
        if (fields.length > 0) await trx.insertInto('fields').values(fields).execute();
        await trx.insertInto('audit_events').values(audit).execute();
      });
    }
  } catch (error) {
    if (isUniqueViolation(error)) {
      if (origin && (await rowTaken(ctx, origin))) throw new MoharError('bulk_row_taken', `row ${origin.row_index} of bulk send ${origin.bulk_send_id} has its envelope already`);
      throw new MoharError('external_id_conflict', `an envelope with external_id "${input.external_id}" exists already in this account`);
    }
    throw error;
  }
  // A new draft has no documents or fields yet: its view comes from the rows just written.
  return envelopeView(envelope, recipients.map(recipientView), []);
}

async function rowTaken(ctx: Context, origin: BulkOrigin): Promise<boolean> {
  const row = await ctx.db.selectFrom('envelopes').select('id').where('bulk_send_id', '=', origin.bulk_send_id).where('row_index', '=', origin.row_index).executeTakeFirst();
  return row !== undefined;
}
