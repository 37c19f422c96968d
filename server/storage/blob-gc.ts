/**
 * The blob collector: deletes stored bytes that no row refers to any more, e.g. the prepared documents a
 * USB DSC signer fetched and never signed (each fetch with other values replaces the recipient's one
 * pending prepared document), or revisions built by an act whose commit lost a race.
 *
 * A blob is deleted only when (1) it was last stored (put) more than the grace period ago, so bytes written
 * by a request still in flight, whose row is not committed yet, are safe; (2) no reference to it was found
 * in a scan of every table that names blobs; (3) a point check just before deleting still finds none, and
 * the store deletes it only if it was not stored again meanwhile (BlobStore.deleteIfStoredBefore).
 *
 * Retention: rows of a purged envelope are records, not references (see blob-references.ts).
 *
 * Runs as the durable job `blobs.collect`, hourly (domain/documents/collect-blobs-job.ts).
 */
import type { Kysely } from 'kysely';
import { blobReferences, documentsInUse, LIVE_ENVELOPE, outboxInUse } from './blob-references.js';
import type { BlobStore } from './blobs.js';
import type { Database } from './schema.js';

export const BLOB_GC_GRACE_MS = 60 * 60 * 1000;

export interface BlobGcResult {
  readonly examined: number;
  readonly deleted: readonly string[];
}

/** Every blob name referenced anywhere, in a column or inside a JSON text. */
async function referencedBlobs(db: Kysely<Database>): Promise<Set<string>> {
  const { named, mentioned } = await blobReferences(db);
  return new Set([...named, ...mentioned]);
}

/** The same question for one blob, asked again right before it is deleted. */
async function isReferenced(db: Kysely<Database>, sha256: string): Promise<boolean> {
  const like = `%${sha256}%`;
  const found = await Promise.all([
    documentsInUse(db).where('documents.sha256', '=', sha256).limit(1).executeTakeFirst(),
    db
      .selectFrom('envelope_documents')
      .innerJoin('envelopes', 'envelopes.id', 'envelope_documents.envelope_id')
      .select('envelope_documents.envelope_id')
      .where('envelope_documents.current_sha256', '=', sha256)
      .where(LIVE_ENVELOPE)
      .limit(1)
      .executeTakeFirst(),
    db
      .selectFrom('document_revisions')
      .innerJoin('envelopes', 'envelopes.id', 'document_revisions.envelope_id')
      .select('document_revisions.envelope_id')
      .where('document_revisions.sha256', '=', sha256)
      .where(LIVE_ENVELOPE)
      .limit(1)
      .executeTakeFirst(),
    db.selectFrom('envelopes').select('id').where('certificate_sha256', '=', sha256).limit(1).executeTakeFirst(),
    db
      .selectFrom('recipients')
      .innerJoin('envelopes', 'envelopes.id', 'recipients.envelope_id')
      .select('recipients.id')
      .where((eb) => eb.or([eb('recipients.prepared_sha256', '=', sha256), eb('recipients.act_details', 'like', like)]))
      .where(LIVE_ENVELOPE)
      .limit(1)
      .executeTakeFirst(),
    outboxInUse(db).select('outbox_mail.id').where('outbox_mail.attachments', 'like', like).limit(1).executeTakeFirst(),
    db
      .selectFrom('template_versions')
      .select('template_id')
      .where('definition', 'like', like)
      .limit(1)
      .executeTakeFirst(),
  ]);
  return found.some((row) => row !== undefined);
}

export async function collectUnreferencedBlobs(
  db: Kysely<Database>,
  blobs: BlobStore,
  options: { now: Date; graceMs?: number },
): Promise<BlobGcResult> {
  const cutoff = new Date(options.now.getTime() - (options.graceMs ?? BLOB_GC_GRACE_MS));
  const referenced = await referencedBlobs(db);
  const deleted: string[] = [];
  let examined = 0;
  for await (const sha256 of blobs.storedBefore(cutoff)) {
    examined++;
    if (referenced.has(sha256) || (await isReferenced(db, sha256))) continue;
    if (await blobs.deleteIfStoredBefore(sha256, cutoff)) deleted.push(sha256);
  }
  return { examined, deleted };
}
