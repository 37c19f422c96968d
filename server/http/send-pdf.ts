/**
 * The one place a route answers with PDF bytes and their headers. Every PDF Mohar serves is content-addressed,
 * so its SHA-256 is the ETag; the rest is what each route promises in its OpenAPI description: the digest
 * as Repr-Digest (RFC 9530) for clients that check what they received, a download name (content-disposition.ts)
 * and no caching where a link or a shared computer may reach the file.
 */
import type { FastifyReply } from 'fastify';
import { attachmentDisposition } from './content-disposition.js';

export interface PdfResponse {
  readonly bytes: Buffer;
  /** The SHA-256 (hex) of `bytes`, sent as the ETag; omitted for bytes built for this request. */
  readonly sha256?: string;
  /** Also send the SHA-256 as `Repr-Digest: sha-256=:base64:`. */
  readonly reprDigest?: boolean;
  /** Sent as an attachment under this name (any script). */
  readonly filename?: string;
  /** `Cache-Control: private, no-store`: for final documents, which a browser must not keep. */
  readonly noStore?: boolean;
  /** Route-specific headers (e.g. X-Mohar-Signature-Field). */
  readonly headers?: Readonly<Record<string, string>>;
}

export function sendPdf(reply: FastifyReply, pdf: PdfResponse): FastifyReply {
  reply.type('application/pdf');
  if (pdf.sha256 !== undefined) reply.header('ETag', `"${pdf.sha256}"`);
  if (pdf.sha256 !== undefined && pdf.reprDigest) {
    reply.header('Repr-Digest', `sha-256=:${Buffer.from(pdf.sha256, 'hex').toString('base64')}:`);
  }
  if (pdf.filename !== undefined) reply.header('Content-Disposition', attachmentDisposition(pdf.filename));
  if (pdf.noStore) reply.header('Cache-Control', 'private, no-store');
  for (const [name, value] of Object.entries(pdf.headers ?? {})) reply.header(name, value);
  return reply.send(pdf.bytes);
}
