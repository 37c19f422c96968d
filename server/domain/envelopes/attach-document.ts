/** POST /envelopes/{id}/documents: attach an uploaded file or an existing workspace document. */
import type { Kysely } from 'kysely';
import { MoharError } from '../../../common/errors.js';
import type { Database } from '../../storage/schema.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import { documentView, findDocument, uploadDocument, type DocumentView } from '../documents/documents.js';
import { checkDscLimits } from './dsc-rules.js';
import { findDraftEnvelope } from './find-envelope.js';

export type DocumentSource =
  { kind: 'upload'; filename: string | undefined; bytes: Uint8Array } | { kind: 'workspace'; documentId: string };

/** Refuses an attachment the envelope cannot take; returns the position the document would get. */
async function checkAttachable(
  ctx: Context,
  db: Kysely<Database>,
  accountId: string,
  envelopeId: string,
  documentId?: string,
): Promise<number> {
  await findDraftEnvelope({ ...ctx, db }, accountId, envelopeId);
  const attached = await db
    .selectFrom('envelope_documents')
    .select(['document_id', 'position'])
    .where('envelope_id', '=', envelopeId)
    .execute();
  if (documentId !== undefined && attached.some((a) => a.document_id === documentId)) {
    throw new MoharError('document_already_attached', `document ${documentId} is attached to this envelope already`);
  }
  const recipients = await db
    .selectFrom('recipients')
    .select(['role', 'signature_method'])
    .where('envelope_id', '=', envelopeId)
    .execute();
  checkDscLimits({ recipients, documentCount: attached.length + 1 });
  return attached.reduce((max, a) => Math.max(max, a.position), 0) + 1;
}

export async function attachDocument(
  ctx: Context,
  accountId: string,
  envelopeId: string,
  source: DocumentSource,
): Promise<DocumentView> {
  // Check before the expensive PDF work (and so a refused upload leaves no workspace document behind),
  // then again inside the transaction, where it counts.
  await checkAttachable(
    ctx,
    ctx.db,
    accountId,
    envelopeId,
    source.kind === 'workspace' ? source.documentId : undefined,
  );
  const document =
    source.kind === 'upload'
      ? await uploadDocument(ctx, accountId, source.filename, source.bytes)
      : documentView(await findDocument(ctx, accountId, source.documentId));
  await ctx.db.transaction().execute(async (trx) => {
    const position = await checkAttachable(ctx, trx, accountId, envelopeId, document.document_id);
    const at = iso(ctx.now());
    await trx
      .insertInto('envelope_documents')
      .values({ envelope_id: envelopeId, document_id: document.document_id, position, created_at: at })
      .execute();
    await trx.updateTable('envelopes').set({ updated_at: at }).where('id', '=', envelopeId).execute();
  });
  return document;
}
