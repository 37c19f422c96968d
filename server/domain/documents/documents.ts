/** Workspace documents: uploaded PDFs, checked, stored content-addressed, owned by one account. */
import { randomUUID } from 'node:crypto';
import { basename } from 'node:path';
import { MoharError } from '../../../common/errors.js';
import type { PdfInfo } from '../../../pdf/index.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import { storeRevision } from './recent-revisions.js';

export interface PageView {
  page_number: number;
  width: number;
  height: number;
  rotate: number;
}

export interface SignatureFieldView {
  name: string;
  signed: boolean;
  page_number: number | null;
  /** Where its widget is, in field coordinates (top-left of the displayed page); null when it has none. */
  rect: { x: number; y: number; width: number; height: number } | null;
}

export interface DocumentView {
  document_id: string;
  filename: string;
  page_count: number;
  size: number;
  sha256: string;
  pages: PageView[];
  signature_fields: SignatureFieldView[];
  created_at: string;
}

/** What the field-layout checks need to know about a stored PDF. */
export type StoredPdfInfo = Pick<PdfInfo, 'pageCount' | 'pages' | 'signatureFields'>;

export function cleanFilename(raw: string | undefined): string {
  const name = basename((raw ?? '').replace(/\\/g, '/'))
    // eslint-disable-next-line no-control-regex -- removing control characters is the point
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim()
    .slice(0, 255);
  return name === '' ? 'document.pdf' : name;
}

export async function uploadDocument(
  ctx: Context,
  accountId: string,
  filename: string | undefined,
  bytes: Uint8Array,
): Promise<DocumentView> {
  if (bytes.byteLength > ctx.config.maxPdfBytes) {
    throw new MoharError(
      'file_too_large',
      `the file has ${bytes.byteLength} bytes; the limit is ${ctx.config.maxPdfBytes}`,
    );
  }
  if (bytes.byteLength === 0) throw new MoharError('invalid_pdf', 'the file is empty');
  const info = await ctx.pdf.inspect(bytes);
  const sha256 = await storeRevision(ctx, bytes);
  const stored: StoredPdfInfo = { pageCount: info.pageCount, pages: info.pages, signatureFields: info.signatureFields };
  const row = {
    id: randomUUID(),
    account_id: accountId,
    filename: cleanFilename(filename),
    sha256,
    size: bytes.byteLength,
    page_count: info.pageCount,
    info: JSON.stringify(stored),
    created_at: iso(ctx.now()),
  };
  await ctx.db
    .insertInto('documents')
    .values({ ...row, mode: ctx.mode ?? 'live' })
    .execute();
  return documentView(row);
}

export interface DocumentRow {
  id: string;
  filename: string;
  sha256: string;
  size: number | string;
  page_count: number;
  info: string;
  created_at: string;
}

export function storedInfo(row: Pick<DocumentRow, 'info'>): StoredPdfInfo {
  return JSON.parse(row.info) as StoredPdfInfo;
}

export function documentView(row: DocumentRow): DocumentView {
  const info = storedInfo(row);
  return {
    document_id: row.id,
    filename: row.filename,
    page_count: row.page_count,
    // PostgreSQL returns bigint as a string.
    size: Number(row.size),
    sha256: row.sha256,
    pages: info.pages.map((p, i) => ({ page_number: i + 1, width: p.width, height: p.height, rotate: p.rotate })),
    signature_fields: info.signatureFields.map((f) => ({
      name: f.name,
      signed: f.signed,
      page_number: f.pageNumber ?? null,
      rect: f.rect ? { x: f.rect.x, y: f.rect.y, width: f.rect.width, height: f.rect.height } : null,
    })),
    created_at: row.created_at,
  };
}

/**
 * Another account's document, or the other mode's (test keys see only test uploads), is reported as not found: ids must
 * not leak existence.
 */
export async function findDocument(ctx: Context, accountId: string, documentId: string): Promise<DocumentRow> {
  const row = await ctx.db
    .selectFrom('documents')
    .select(['id', 'filename', 'sha256', 'size', 'page_count', 'info', 'created_at', 'purged_at'])
    .where('id', '=', documentId)
    .where('account_id', '=', accountId)
    .$if(ctx.mode !== undefined, (q) => q.where('mode', '=', ctx.mode!))
    .executeTakeFirst();
  if (!row) throw new MoharError('document_not_found', `no document ${documentId}`);
  const { purged_at: purgedAt, ...document } = row;
  // Purged with the last envelope that used it (domain/retention): its bytes may be gone, so it is never used again.
  if (purgedAt) {
    throw new MoharError('documents_purged', `document ${documentId} was deleted by the retention policy`, {
      extra: { document_id: documentId, purged_at: purgedAt },
    });
  }
  return document;
}
