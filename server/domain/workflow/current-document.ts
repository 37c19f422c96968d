/**
 * GET {api_base}/signing/{token}/documents/{id}: a document of the link's envelope as it stands now (every revision so
 * far).
 */
import { MoharError } from '../../../common/errors.js';
import type { Context } from '../context.js';

export interface CurrentDocument {
  readonly bytes: Buffer;
  readonly sha256: string;
}

export async function currentDocument(ctx: Context, envelopeId: string, documentId: string): Promise<CurrentDocument> {
  const row = await ctx.db
    .selectFrom('envelope_documents')
    .select('current_sha256')
    .where('envelope_id', '=', envelopeId)
    .where('document_id', '=', documentId)
    .executeTakeFirst();
  if (!row?.current_sha256) throw new MoharError('document_not_found', `no document ${documentId} in this envelope`);
  return { bytes: await ctx.blobs.get(row.current_sha256), sha256: row.current_sha256 };
}
