/** The documents of an envelope in their order (the signing page preloads them in this order). */
import type { Context } from '../context.js';

export async function envelopeDocumentIds(ctx: Context, envelopeId: string): Promise<string[]> {
  const documents = await ctx.db
    .selectFrom('envelope_documents')
    .select('document_id')
    .where('envelope_id', '=', envelopeId)
    .orderBy('position')
    .execute();
  return documents.map((d) => d.document_id);
}
