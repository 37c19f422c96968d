/**
 * A batch's entries: what one signing link asks of this signer now, as one entry per document (ready with its
 * prepared bytes, name and SHA-256) or one skipped entry with the reason.
 */
import type { BatchItem } from '../../common/desktop-batch.js';
import { fetchPrepared, linkWork, ServerRefusal, signerApiOf, type BatchHttp } from './batch-fetch.js';
import { toDesktopError } from './outcome.js';

export interface Entry {
  item: BatchItem;
  readonly api: string;
  readonly documentId: string;
  prepared: { bytes: Buffer; fieldName: string } | null;
}

function item(signingUrl: string, id: string, fields: Partial<BatchItem>): BatchItem {
  return {
    id,
    signingUrl,
    envelopeTitle: '',
    documentName: '',
    documentSha256: '',
    state: 'skipped',
    reason: null,
    reasonCode: null,
    envelopeStatus: null,
    ...fields,
  };
}

export function reasonOf(error: unknown): { code: string; message: string } {
  if (error instanceof ServerRefusal) return { code: error.code, message: `The server refused: ${error.message}` };
  const desktop = toDesktopError(error, 'after-pin');
  return { code: desktop.code, message: desktop.message };
}

export async function linkEntries(http: BatchHttp, link: string): Promise<Entry[]> {
  const api = signerApiOf(link)!;
  try {
    const work = await linkWork(http, api);
    if (work.kind === 'nothing') {
      const it = item(link, link, { envelopeTitle: work.envelopeTitle, reason: work.reason, reasonCode: work.code });
      return [{ item: it, api, documentId: '', prepared: null }];
    }
    const out: Entry[] = [];
    for (const doc of work.documents) {
      const id = `${link}#${doc.documentId}`;
      const base = { envelopeTitle: work.envelopeTitle, documentName: doc.name };
      try {
        const prepared = await fetchPrepared(http, api, doc.documentId);
        out.push({
          item: item(link, id, { ...base, documentSha256: prepared.sha256, state: 'ready' }),
          api,
          documentId: doc.documentId,
          prepared: { bytes: prepared.bytes, fieldName: prepared.fieldName },
        });
      } catch (error) {
        const { code, message } = reasonOf(error);
        out.push({
          item: item(link, id, { ...base, reason: message, reasonCode: code }),
          api,
          documentId: '',
          prepared: null,
        });
      }
    }
    return out;
  } catch (error) {
    const { code, message } =
      error instanceof ServerRefusal
        ? reasonOf(error)
        : {
            code: 'network_error',
            message: `The server could not be reached: ${error instanceof Error ? error.message : String(error)}`,
          };
    return [{ item: item(link, link, { reason: message, reasonCode: code }), api, documentId: '', prepared: null }];
  }
}
