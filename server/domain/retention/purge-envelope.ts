/**
 * Purges one finished envelope's documents, in one transaction (decision 41):
 * 1. claim it: a conditional UPDATE sets purged_at only if it is finished, not purged and not on legal hold, so
 *    two job runners (or a hold placed meanwhile) never both win: the loser changes nothing and sends nothing;
 * 2. drop what still points at bytes without being a record: the recipients' pending USB DSC downloads;
 * 3. mark the workspace documents it used purged, unless a live envelope or a template still names them;
 * 4. record `envelope.purged`: the event, its webhook deliveries and the audit row, in the envelope's chain.
 * No blob is deleted here. The rows that name the bytes stay, so the SHA-256 of every revision remains; the blob
 * collector (storage/blob-gc.ts) no longer counts a purged envelope's rows as references and deletes the bytes
 * after its grace period, unless anything else (another envelope, a template, the same PDF uploaded again) still
 * names them. The certificate of completion is a separate stored PDF (envelopes.certificate_sha256, made from the
 * audit trail at completion), which stays a reference: it remains downloadable.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import { recordEvent } from '../workflow/events.js';
import { FINISHED_ENVELOPE_STATUSES } from '../workflow/states.js';
import { envelopeSummary } from '../workflow/summaries.js';

export const PURGEABLE_STATUSES = [...FINISHED_ENVELOPE_STATUSES];

export interface PurgeReason {
  readonly retentionDays: number;
  /** Whose policy: the account's, or the template's the envelope was made from. */
  readonly policy: 'account' | 'template';
}

/** True when this call purged it; false when it was purged already, is held, or is not finished. */
export async function purgeEnvelope(ctx: Context, envelopeId: string, reason: PurgeReason): Promise<boolean> {
  const at = iso(ctx.now());
  return ctx.db.transaction().execute(async (trx) => {
    const claimed = await trx
      .updateTable('envelopes')
      .set({ purged_at: at })
      .where('id', '=', envelopeId)
      .where('purged_at', 'is', null)
      .where('legal_hold_at', 'is', null)
      .where('status', 'in', PURGEABLE_STATUSES)
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) !== 1) return false;
    const envelope = await trx
      .selectFrom('envelopes')
      .selectAll()
      .where('id', '=', envelopeId)
      .executeTakeFirstOrThrow();
    await trx.updateTable('recipients').set({ prepared_sha256: null }).where('envelope_id', '=', envelopeId).execute();
    const documents = await trx
      .selectFrom('envelope_documents')
      .innerJoin('documents', 'documents.id', 'envelope_documents.document_id')
      .select(['documents.id', 'documents.filename', 'documents.sha256', 'envelope_documents.current_sha256'])
      .where('envelope_documents.envelope_id', '=', envelopeId)
      .orderBy('envelope_documents.position')
      .execute();
    for (const document of documents) {
      if (!(await stillUsed(trx, document.id, envelopeId))) {
        await trx.updateTable('documents').set({ purged_at: at }).where('id', '=', document.id).execute();
      }
    }
    await recordEvent(
      trx,
      envelope.account_id,
      envelopeId,
      'envelope.purged',
      {
        envelope: envelopeSummary(envelope),
        purged_at: at,
        retention_days: reason.retentionDays,
        policy: reason.policy,
        documents: documents.map((d) => ({
          document_id: d.id,
          filename: d.filename,
          sha256: d.sha256,
          final_sha256: envelope.status === 'completed' ? d.current_sha256 : null,
        })),
      },
      at,
      { type: 'system', details: { retention_days: reason.retentionDays, policy: reason.policy } },
    );
    return true;
  });
}

/** Another envelope not purged, or any template version, names the workspace document. */
async function stillUsed(trx: Kysely<Database>, documentId: string, envelopeId: string): Promise<boolean> {
  const envelope = await trx
    .selectFrom('envelope_documents')
    .innerJoin('envelopes', 'envelopes.id', 'envelope_documents.envelope_id')
    .select('envelopes.id')
    .where('envelope_documents.document_id', '=', documentId)
    .where('envelopes.id', '<>', envelopeId)
    .where('envelopes.purged_at', 'is', null)
    .limit(1)
    .executeTakeFirst();
  // Template definitions name their documents by id (and SHA-256) in JSON (templates/model.ts).
  const template = await trx
    .selectFrom('template_versions')
    .select('template_id')
    .where('definition', 'like', `%${documentId}%`)
    .limit(1)
    .executeTakeFirst();
  return envelope !== undefined || template !== undefined;
}
