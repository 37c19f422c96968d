/**
 * DELETE /envelopes/{id}/documents/{document_id}: a draft lets go of a document and the fields placed on
 * it. The workspace document and its bytes stay (it may be attached elsewhere or again); bytes nothing
 * refers to any more are the blob collector's business (server/storage/blob-gc.ts).
 */
import { MoharError } from '../../../common/errors.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import { findDraftEnvelope } from './find-envelope.js';
import { loadEnvelopeView, type EnvelopeView } from './views.js';
import { materializeLayout } from './field-rows.js';

export async function detachDocument(
  ctx: Context,
  accountId: string,
  envelopeId: string,
  documentId: string,
): Promise<EnvelopeView> {
  await ctx.db.transaction().execute(async (trx) => {
    await findDraftEnvelope({ ...ctx, db: trx }, accountId, envelopeId);
    await materializeLayout(trx, envelopeId);
    const removed = await trx
      .deleteFrom('envelope_documents')
      .where('envelope_id', '=', envelopeId)
      .where('document_id', '=', documentId)
      .executeTakeFirst();
    if (Number(removed.numDeletedRows) === 0) {
      throw new MoharError('document_not_found', `document ${documentId} is not attached to envelope ${envelopeId}`);
    }
    await trx
      .deleteFrom('fields')
      .where('envelope_id', '=', envelopeId)
      .where('document_id', '=', documentId)
      .execute();
    await trx
      .updateTable('envelopes')
      .set({ updated_at: iso(ctx.now()) })
      .where('id', '=', envelopeId)
      .execute();
  });
  return loadEnvelopeView(ctx.db, envelopeId);
}
