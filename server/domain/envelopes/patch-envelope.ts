/**
 * PATCH /envelopes/{id}: a JSON Merge Patch (RFC 7396) on the settings of a draft: a member present sets
 * it, null clears it (title and routing_order cannot be cleared), metadata merges member by member.
 * `reminders` alone may also be patched while the envelope is in progress (sent).
 * Recipients and documents have their own calls.
 */
import { MoharError } from '../../../common/errors.js';
import { isUniqueViolation } from '../../storage/connect.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import { mergePatch } from '../templates/patch-template.js';
import { checkRedirectUrl, MAX_METADATA_BYTES } from './create-envelope.js';
import { findDraftEnvelope, findEnvelope } from './find-envelope.js';
import type { RoutingOrder } from './model.js';
import { refreshSearch } from './search-index.js';
import { checkReminderSettings, type ReminderSettings } from '../workflow/reminder-settings.js';
import { loadEnvelopeView, type EnvelopeView } from './views.js';

export interface EnvelopePatch {
  title?: string | null;
  message?: string | null;
  routing_order?: RoutingOrder | null;
  expire_in_days?: number | null;
  redirect_url?: string | null;
  metadata?: Record<string, unknown> | null;
  external_id?: string | null;
  reminders?: Partial<ReminderSettings> | null;
}

const EDITABLE = [
  'title',
  'message',
  'routing_order',
  'expire_in_days',
  'redirect_url',
  'metadata',
  'external_id',
  'reminders',
] as const;
const REQUIRED = new Set(['title', 'routing_order']);

/** Members of the envelope (GET /envelopes/{id}) that PATCH cannot change: sent, they are refused with a hint. */
const NOT_EDITABLE = new Set([
  'id',
  'status',
  'recipients',
  'documents',
  'delivery',
  'mode',
  'sent_at',
  'completed_at',
  'expires_at',
  'status_reason',
  'pades_level',
  'template_id',
  'template_version',
  'bulk_send_id',
  'row_index',
  'created_by',
  'created_at',
  'updated_at',
]);

/**
 * The editable members of the patch. Another member of the envelope is refused (it cannot be changed here);
 * an unknown member is ignored, as on create and everywhere in the API (docs/api.md, "Unknown members").
 */
function editableMembers(patch: Record<string, unknown>): Record<string, unknown> {
  const errors = Object.keys(patch).flatMap((key) => {
    if (NOT_EDITABLE.has(key)) {
      const where =
        key === 'recipients'
          ? ' (PATCH or DELETE …/recipients/{recipient_id}, POST …/recipients)'
          : key === 'documents'
            ? ' (POST or DELETE …/documents)'
            : '';
      return [{ path: `/${key}`, message: `is not editable here${where}` }];
    }
    return patch[key] === null && REQUIRED.has(key) ? [{ path: `/${key}`, message: 'cannot be removed' }] : [];
  });
  if (errors.length > 0) {
    throw new MoharError('validation_failed', errors.map((e) => `${e.path} ${e.message}`).join('; '), { errors });
  }
  return Object.fromEntries(Object.entries(patch).filter(([key]) => (EDITABLE as readonly string[]).includes(key)));
}

type Json = Parameters<typeof mergePatch>[0];

export async function patchEnvelope(
  ctx: Context,
  accountId: string,
  envelopeId: string,
  patch: Record<string, unknown>,
): Promise<EnvelopeView> {
  const known = editableMembers(patch);
  const input = known as EnvelopePatch;
  if (input.redirect_url !== null) checkRedirectUrl(input.redirect_url, '/redirect_url');
  try {
    await ctx.db.transaction().execute(async (trx) => {
      // Reminders alone may change while the envelope is in progress (e.g. turned off); everything else is a draft's.
      const remindersOnly = Object.keys(known).length === 1 && input.reminders !== undefined;
      const found = remindersOnly ? await findEnvelope({ ...ctx, db: trx }, accountId, envelopeId) : undefined;
      const envelope =
        found?.status === 'sent' ? found : await findDraftEnvelope({ ...ctx, db: trx }, accountId, envelopeId);
      const changes: Record<string, string | number | null> = {};
      if (input.title !== undefined) changes.title = input.title!.trim();
      if (input.routing_order !== undefined) changes.routing_order = input.routing_order!;
      for (const key of ['message', 'expire_in_days', 'redirect_url', 'external_id'] as const) {
        if (input[key] !== undefined) changes[key] = input[key];
      }
      if (input.metadata !== undefined) changes.metadata = mergedMetadata(envelope.metadata, input.metadata);
      // Replaced as a whole (not merged member by member): null returns the envelope to the account's defaults.
      if (input.reminders !== undefined) {
        changes.reminders =
          input.reminders === null ? null : JSON.stringify(checkReminderSettings(input.reminders, '/reminders'));
      }
      await trx
        .updateTable('envelopes')
        .set({ ...changes, updated_at: iso(ctx.now()) })
        .where('id', '=', envelopeId)
        .execute();
      if (input.title !== undefined || input.external_id !== undefined) await refreshSearch(trx, envelopeId);
    });
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new MoharError(
        'external_id_conflict',
        `an envelope with external_id "${input.external_id}" exists already in this account`,
      );
    }
    throw error;
  }
  return loadEnvelopeView(ctx.db, envelopeId);
}

function mergedMetadata(stored: string | null, patch: Record<string, unknown> | null): string | null {
  if (patch === null) return null;
  const merged = mergePatch((stored === null ? {} : JSON.parse(stored)) as Json, patch as Json);
  const text = JSON.stringify(merged);
  if (Buffer.byteLength(text) > MAX_METADATA_BYTES) {
    throw new MoharError('validation_failed', `metadata is larger than ${MAX_METADATA_BYTES} bytes`, {
      errors: [{ path: '/metadata', message: 'too large' }],
    });
  }
  return text;
}
