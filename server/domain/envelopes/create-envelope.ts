/**
 * POST /envelopes: a draft with optional recipients, the first row of its audit trail and its
 * envelope.created event, in one commit (write-draft.ts: the SQLite fast path's group commit, or one
 * PostgreSQL statement). Template instantiation and bulk send rows create through here too.
 */
import { MoharError } from '../../../common/errors.js';
import type {
  EnvelopeDocumentsTable,
  EnvelopeSearchTermsTable,
  FieldsTable,
  RecipientsTable,
} from '../../storage/schema.js';
import { firstAuditRow, type AuditRow } from '../../audit/index.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import { newId } from '../ids.js';
import { createdEvent, type CreatedEvent } from './created-event.js';
import { checkDscLimits } from './dsc-rules.js';
import type { EnvelopeInput } from './model.js';
import { normalizeRecipient } from './recipients.js';
import { assertAadhaarAvailable } from '../aadhaar/availability.js';
import { searchRowsOf } from '../../storage/search-terms.js';
import { envelopeView, recipientView, type EnvelopeRow, type EnvelopeView } from './views.js';
import { writeDraft } from './write-draft.js';
import type { KeyInCommit } from '../idempotency/idempotency.js';
import { checkReminderSettings } from '../workflow/reminder-settings.js';

export const MAX_METADATA_BYTES = 16 * 1024;

export function checkRedirectUrl(url: string | undefined, path: string): void {
  if (url === undefined) return;
  const protocol = URL.canParse(url) ? new URL(url).protocol : '';
  if (protocol !== 'https:' && protocol !== 'http:') {
    throw new MoharError('validation_failed', `${path} must be an http(s) URL`, {
      errors: [{ path, message: 'must be an http(s) URL' }],
    });
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
  readonly documents: readonly Pick<
    EnvelopeDocumentsTable,
    'envelope_id' | 'document_id' | 'position' | 'created_at'
  >[];
  readonly fields: (recipients: readonly RecipientsTable[], envelopeId: string) => FieldsTable[];
  /** An instantiated draft's layout by reference (field-rows.ts), given the recipients: pending_layout's JSON. */
  readonly pendingLayout?: (recipients: readonly RecipientsTable[]) => string;
}

/** A draft's rows, built and checked, not yet written (prepareDraft); writeDraft writes them in one commit. */
export interface PreparedDraft {
  readonly envelope: EnvelopeRow;
  readonly recipients: readonly RecipientsTable[];
  /** GET /envelopes?q=: the envelope's search_text and its word-start terms (search-terms.ts). */
  readonly searchText: string;
  readonly terms: readonly EnvelopeSearchTermsTable[];
  readonly documents: DraftContents['documents'];
  readonly fields: readonly FieldsTable[];
  readonly audit: AuditRow;
  readonly event: CreatedEvent;
  readonly origin: BulkOrigin | undefined;
  /** The creating user's e-mail, for the answer's created_by (the row holds the id). */
  readonly creatorEmail: string | null;
}

export async function createEnvelope(
  ctx: Context,
  accountId: string,
  input: EnvelopeInput,
  pin?: TemplatePin,
  origin?: BulkOrigin,
  contents?: (envelopeId: string, at: string) => DraftContents,
): Promise<EnvelopeView> {
  const draft = prepareDraft(ctx, accountId, input, pin, origin, contents);
  await writeDraft(ctx, draft);
  return draftView(draft);
}

/**
 * POST /envelopes with an Idempotency-Key: the key's row, done with the answer, is written in the draft's own
 * commit, so a crash leaves either both (a retry replays the answer) or neither (a retry creates it): never a
 * draft whose id the client cannot learn (issue 33). KeyTakenMeanwhile when a concurrent request took the key.
 */
export async function createEnvelopeWithKey(
  ctx: Context,
  accountId: string,
  input: EnvelopeInput,
  claim: KeyInCommit,
): Promise<EnvelopeView> {
  const draft = prepareDraft(ctx, accountId, input);
  const view = draftView(draft);
  await writeDraft(ctx, draft, { claim, responseJson: claim.serialize(view) });
  return view;
}

/** Every check of a create, and the rows it writes; throws before anything is written. */
export function prepareDraft(
  ctx: Context,
  accountId: string,
  input: EnvelopeInput,
  pin?: TemplatePin,
  origin?: BulkOrigin,
  contents?: (envelopeId: string, at: string) => DraftContents,
): PreparedDraft {
  checkRedirectUrl(input.redirect_url, '/redirect_url');
  const metadata = input.metadata === undefined ? null : JSON.stringify(input.metadata);
  if (metadata !== null && Buffer.byteLength(metadata) > MAX_METADATA_BYTES) {
    throw new MoharError('validation_failed', `metadata is larger than ${MAX_METADATA_BYTES} bytes`, {
      errors: [{ path: '/metadata', message: 'too large' }],
    });
  }
  const id = newId();
  const at = iso(ctx.now());
  const routing = input.routing_order ?? 'sequential';
  const recipients: RecipientsTable[] = [];
  (input.recipients ?? []).forEach((r, index) =>
    recipients.push(normalizeRecipient(r, routing, recipients, id, index + 1, at, index)),
  );
  assertAadhaarAvailable(ctx.config, recipients, (index) => `/recipients/${index}/signature_method`, ctx.mode);
  const extra = contents?.(id, at);
  checkDscLimits({ recipients, documentCount: extra?.documents.length ?? 0 });
  const fields = extra?.fields(recipients, id) ?? [];
  const envelope: EnvelopeRow = {
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
    ...(input.createdBy ? { created_by_user_id: input.createdBy.userId } : {}),
    // The creator's mode (a qsk_test_ key: test) and delivery, read by every later step from the row itself.
    mode: ctx.mode ?? 'live',
    send_mail: input.delivery === 'none' ? 0 : 1,
    reminders: input.reminders ? JSON.stringify(checkReminderSettings(input.reminders, '/reminders')) : null,
    ...(extra?.pendingLayout ? { pending_layout: extra.pendingLayout(recipients) } : {}),
  };
  const search = searchRowsOf({ ...envelope, recipients });
  const event = createdEvent(envelope);
  // The envelope.created event's audit row is the trail's first row.
  const actor = input.createdBy
    ? { actorType: 'user' as const, actorId: input.createdBy.userId }
    : { actorType: 'api_key' as const };
  const audit = firstAuditRow({
    envelopeId: id,
    accountId,
    ...actor,
    action: 'envelope.created',
    details: { title: envelope.title, recipients: recipients.length, ...(pin ?? {}), event_id: event.row.id },
    at,
  });
  return {
    envelope,
    recipients,
    searchText: search.searchText,
    terms: search.terms,
    documents: extra?.documents ?? [],
    fields,
    audit,
    event,
    origin,
    creatorEmail: input.createdBy?.email ?? null,
  };
}

/** A new draft as the API shows it, from its rows (no documents: see DraftContents for those). */
export function draftView(draft: PreparedDraft): EnvelopeView {
  return envelopeView(
    { ...draft.envelope, created_by_email: draft.creatorEmail },
    draft.recipients.map(recipientView),
    [],
  );
}
