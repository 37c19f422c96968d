/**
 * Appending revisions to a document's history, the one step every act that writes into a document shares
 * (the sealed act, the USB DSC upload, Aadhaar eSign, completion's validation data): inside the caller's
 * transaction, the document moves from the bytes the revisions were built on to the last of them, and the
 * revisions are numbered after the document's last one. The move is a compare-and-set: a parallel act that
 * committed first leaves nothing written here, and the caller decides what that means for its act (retry on
 * fresh bytes, or refuse). The revisions are judged and stored (blobs) by the caller before its transaction.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.js';

export interface AppendedRevision {
  readonly sha256: string;
  readonly size: number;
  /** document_revisions.act: filled, signed, approved, sealed, validation_data, document_timestamp */
  readonly act: string;
}

export interface RevisionAppend {
  readonly envelopeId: string;
  readonly documentId: string;
  /** The current_sha256 the revisions were built on. */
  readonly from: string;
  /** In order; the last one becomes the document's current bytes. At least one. */
  readonly revisions: readonly AppendedRevision[];
  /** The recipient whose act made them (null for the system's own, e.g. completion). */
  readonly recipientId: string | null;
  readonly at: string;
}

/** Moves the document on and records the revisions; false (nothing written) when it is no longer at `from`. */
export async function appendRevisions(trx: Kysely<Database>, append: RevisionAppend): Promise<boolean> {
  const { envelopeId, documentId, revisions } = append;
  const last = revisions.at(-1);
  if (!last) throw new Error('appendRevisions: no revision to append');
  const moved = await trx
    .updateTable('envelope_documents')
    .set({ current_sha256: last.sha256 })
    .where('envelope_id', '=', envelopeId)
    .where('document_id', '=', documentId)
    .where('current_sha256', '=', append.from)
    .executeTakeFirst();
  if (Number(moved.numUpdatedRows) !== 1) return false;
  const { seq } = await trx
    .selectFrom('document_revisions')
    .select((eb) => eb.fn.max('seq').as('seq'))
    .where('envelope_id', '=', envelopeId)
    .where('document_id', '=', documentId)
    .executeTakeFirstOrThrow();
  let next = Number(seq ?? 0);
  for (const r of revisions) {
    await trx
      .insertInto('document_revisions')
      .values({
        envelope_id: envelopeId,
        document_id: documentId,
        seq: ++next,
        sha256: r.sha256,
        size: r.size,
        act: r.act,
        recipient_id: append.recipientId,
        created_at: append.at,
      })
      .execute();
  }
  return true;
}
