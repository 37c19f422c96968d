/**
 * GET /envelopes/{id}/documents/{document_id}/download: the exact final bytes, after completion only; 410
 * documents_purged once retention deleted them. Every download (v1, legacy, sandbox, signer) comes through here.
 */
import { MoharError } from '../../../common/errors.js';
import type { Context } from '../context.js';
import { findEnvelope } from '../envelopes/find-envelope.js';
import { refusePurged } from '../retention/purged.js';

export interface FinalDocument {
  readonly bytes: Buffer;
  readonly sha256: string;
  readonly filename: string;
}

export async function finalDocument(
  ctx: Context,
  accountId: string,
  envelopeId: string,
  documentId: string,
): Promise<FinalDocument> {
  const envelope = await findEnvelope(ctx, accountId, envelopeId);
  refusePurged(envelope);
  const document = await ctx.db
    .selectFrom('envelope_documents')
    .innerJoin('documents', 'documents.id', 'envelope_documents.document_id')
    .select(['envelope_documents.current_sha256', 'documents.filename'])
    .where('envelope_documents.envelope_id', '=', envelopeId)
    .where('envelope_documents.document_id', '=', documentId)
    .executeTakeFirst();
  if (!document) {
    throw new MoharError('document_not_found', `document ${documentId} is not part of envelope ${envelopeId}`);
  }
  if (envelope.status !== 'completed' || !document.current_sha256) {
    throw new MoharError(
      'document_not_ready',
      `the signed document is available once the envelope is completed; it is ${envelope.status}`,
      { extra: { envelope_status: envelope.status } },
    );
  }
  return {
    bytes: await ctx.blobs.get(document.current_sha256),
    sha256: document.current_sha256,
    filename: document.filename,
  };
}
