/** POST /envelopes/{id}/documents: attach an uploaded file or an existing workspace document. */
import { MoharError } from '../../../common/errors.js';
import { iso, type Context } from '../context.js';
import { documentView, findDocument, uploadDocument, type DocumentView } from '../documents/documents.js';
import { checkDscLimits } from './dsc-rules.js';
import { findDraftEnvelope } from './find-envelope.js';

export type DocumentSource = { kind: 'upload'; filename: string | undefined; bytes: Uint8Array } | { kind: 'workspace'; documentId: string };

export async function attachDocument(ctx: Context, accountId: string, envelopeId: string, source: DocumentSource): Promise<DocumentView> {
  // Check the envelope before doing expensive PDF work, and again inside the transaction.
  await findDraftEnvelope(ctx, accountId, envelopeId);
  const document = source.kind === 'upload' ? await uploadDocument(ctx, accountId, source.filename, source.bytes) : documentView(await findDocument(ctx, accountId, source.documentId));
  await ctx.db.transaction().execute(async (trx) => {
    await findDraftEnvelope({ ...ctx, db: trx }, accountId, envelopeId);
    const attached = await trx.selectFrom('envelope_documents').select(['document_id', 'position']).where('envelope_id', '=', envelopeId).execute();
    if (attached.some((a) => a.document_id === document.document_id)) {
      throw new MoharError('document_already_attached', `document ${document.document_id} is attached to this envelope already`);
    }
    const recipients = await trx.selectFrom('recipients').select(['role', 'signature_method']).where('envelope_id', '=', envelopeId).execute();
    checkDscLimits({ recipients, documentCount: attached.length + 1 });
    const at = iso(ctx.now());
    const position = attached.reduce((max, a) => Math.max(max, a.position), 0) + 1;
    await trx.insertInto('envelope_documents').values({ envelope_id: envelopeId, document_id: document.document_id, position, created_at: at }).execute();
    await trx.updateTable('envelopes').set({ updated_at: at }).where('id', '=', envelopeId).execute();
  });
  return document;
}
