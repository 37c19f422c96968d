/**
 * GET /envelopes/{id}/audit-trail/certificate: the sealed certificate of completion, once the envelope is completed.
 */
import { MoharError } from '../../../common/errors.js';
import type { Context } from '../context.js';
import { findEnvelope } from './find-envelope.js';

export interface CompletionCertificateFile {
  readonly bytes: Buffer;
  readonly sha256: string;
  readonly filename: string;
}

export async function completionCertificateFile(
  ctx: Context,
  accountId: string,
  envelopeId: string,
): Promise<CompletionCertificateFile> {
  const envelope = await findEnvelope(ctx, accountId, envelopeId);
  if (!envelope.certificate_sha256) {
    throw new MoharError(
      'document_not_ready',
      'the certificate of completion is issued when the envelope is completed',
      { extra: { envelope_status: envelope.status } },
    );
  }
  return {
    bytes: await ctx.blobs.get(envelope.certificate_sha256),
    sha256: envelope.certificate_sha256,
    filename: `certificate-of-completion-${envelope.id}.pdf`,
  };
}
