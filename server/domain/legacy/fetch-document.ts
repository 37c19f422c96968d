/**
 * documentDetails.doc_url: the PDF is fetched by the server through the guarded GET (server/net/guarded-get.ts):
 * public addresses only unless MOHAR_FETCH_ALLOW_PRIVATE=1, every redirect hop checked again, at most 3 hops,
 * 30 s for the whole fetch, at most MOHAR_MAX_PDF_BYTES read. Whether it is a PDF is the upload intake's
 * job (the caller passes the bytes to uploadDocument). Failures name the field.
 */
import { basename } from 'node:path';
import { MoharError } from '../../../common/errors.js';
import { guardedGet, GuardedGetError } from '../../net/guarded-get.js';
import type { Context } from '../context.js';

export const DOC_URL_PATH = '/documentDetails/doc_url';
export const DOC_URL_TIMEOUT_MS = 30_000;
export const DOC_URL_MAX_REDIRECTS = 3;

export interface FetchedDocument {
  readonly bytes: Buffer;
  /** From the last path segment of the URL the bytes came from. */
  readonly filename: string;
}

export async function fetchDocumentUrl(ctx: Context, url: string): Promise<FetchedDocument> {
  try {
    const result = await guardedGet(url, {
      allowPrivate: ctx.config.fetchAllowPrivate,
      timeoutMs: DOC_URL_TIMEOUT_MS,
      maxBytes: ctx.config.maxPdfBytes,
      maxRedirects: DOC_URL_MAX_REDIRECTS,
    });
    return { bytes: result.bytes, filename: filenameOf(result.url) };
  } catch (error) {
    if (!(error instanceof GuardedGetError)) throw error;
    const errors = [{ path: DOC_URL_PATH, message: error.message }];
    if (error.kind === 'refused') {
      throw new MoharError('doc_url_not_allowed', `documentDetails.doc_url was not fetched: ${error.message}`, {
        errors,
      });
    }
    if (error.kind === 'too_large') {
      throw new MoharError('file_too_large', `documentDetails.doc_url: ${error.message} (MOHAR_MAX_PDF_BYTES)`, {
        errors,
      });
    }
    throw new MoharError('doc_url_fetch_failed', `documentDetails.doc_url could not be fetched: ${error.message}`, {
      errors,
    });
  }
}

function filenameOf(url: string): string {
  let name = '';
  try {
    name = decodeURIComponent(basename(new URL(url).pathname));
  } catch {
    name = basename(new URL(url).pathname);
  }
  if (name === '' || name === '/') return 'document.pdf';
  return /\.pdf$/i.test(name) ? name : `${name}.pdf`;
}
