/**
 * The legacy status calls:
 * - GET /document/app/sign/status/{doc_id}/: one entry per recipient, and signed_doc_url once everyone has
 *   signed (the envelope is completed and its final PDF exists);
 * - GET /document/sign/status/?doc_id=: the document's status word;
 * - GET /document/download/?doc_id= and the signed_doc_url link: the final PDF.
 */
import { MoharError } from '../../../common/errors.js';
import type { Context } from '../context.js';
import { finalDocument, type FinalDocument } from '../workflow/download.js';
import { FINISHED_STATUSES } from '../workflow/routing.js';
import { mintDownloadToken, openDownloadToken } from './download-links.js';
import { findLegacyDocument, legacyStatusRows, type StatusRow } from './legacy-documents.js';
import { capacityOf, legacyStatus, signatureTypeOf, type LegacyStatus } from './vocabulary.js';

export interface RecipientStatus {
  user_name: string;
  email_of_user: string;
  is_signed: boolean;
  is_rejected: boolean;
  rejection_reason: string;
  sequence: number;
  signingCapacity: string;
  typeOfSignature: string;
}

export interface AppSignStatus {
  data: RecipientStatus[];
  signed_doc_url?: string;
}

/** The LEFT JOIN gives one row without a recipient for an envelope that has none. */
function recipientsOf(rows: readonly StatusRow[]): StatusRow[] {
  return rows.filter((r) => r.role !== null);
}

/** `linkFor` turns a download token into the absolute URL of the download route. */
export async function appSignStatus(
  ctx: Context,
  accountId: string,
  documentId: number,
  linkFor: (token: string) => string,
): Promise<AppSignStatus> {
  const rows = await legacyStatusRows(ctx, accountId, documentId);
  const data = recipientsOf(rows).map((r) => ({
    user_name: r.name!,
    email_of_user: r.email!,
    // Approvers and reviewers count as "signed" once they have approved or reviewed: their part is done.
    is_signed: FINISHED_STATUSES.has(r.recipient_status!) || r.recipient_status === 'completed',
    is_rejected: r.recipient_status === 'declined',
    rejection_reason: r.decline_reason ?? '',
    sequence: r.sequence!,
    signingCapacity: capacityOf(r.role!),
    typeOfSignature: signatureTypeOf(r.role!, r.signature_method!),
  }));
  if (rows[0]!.envelope_status !== 'completed') return { data };
  const { token } = await mintDownloadToken(ctx, documentId);
  return { data, signed_doc_url: linkFor(token) };
}

export interface SignStatus {
  status: 'success';
  document_id: number;
  envelope_id: string;
  document_status: LegacyStatus;
}

export async function signStatus(ctx: Context, accountId: string, documentId: number): Promise<SignStatus> {
  const rows = await legacyStatusRows(ctx, accountId, documentId);
  const recipients = recipientsOf(rows).map((r) => ({ role: r.role!, status: r.recipient_status! }));
  return {
    status: 'success',
    document_id: documentId,
    envelope_id: rows[0]!.envelope_id,
    document_status: legacyStatus(rows[0]!.envelope_status, recipients),
  };
}

async function finalOf(ctx: Context, accountId: string, documentId: number): Promise<FinalDocument> {
  const document = await findLegacyDocument(ctx, accountId, documentId);
  const attached = await ctx.db
    .selectFrom('envelope_documents')
    .select('document_id')
    .where('envelope_id', '=', document.envelopeId)
    .orderBy('position')
    .executeTakeFirst();
  if (!attached) throw new MoharError('document_not_ready', `document ${documentId} has no PDF`);
  return finalDocument(ctx, accountId, document.envelopeId, attached.document_id);
}

/** GET /document/download/?doc_id= with the API key: the final PDF once completed, else document_not_ready. */
export function downloadFinal(ctx: Context, accountId: string, documentId: number): Promise<FinalDocument> {
  return finalOf(ctx, accountId, documentId);
}

/** The signed_doc_url link: the token is the credential. */
export async function downloadByLink(ctx: Context, token: string): Promise<FinalDocument> {
  const documentId = await openDownloadToken(ctx, token);
  const owner = await ctx.db
    .selectFrom('legacy_documents')
    .select('account_id')
    .where('id', '=', documentId)
    .executeTakeFirst();
  if (!owner) throw new MoharError('download_link_expired', 'this download link is not valid any more');
  return finalOf(ctx, owner.account_id, documentId);
}
