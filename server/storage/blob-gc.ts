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
 * Retention: rows of a purged envelope are records, not references (see LIVE_ENVELOPE below).
 *
 * Runs as the durable job `blobs.collect`, hourly: each run enqueues the next (one per hour slot, deduped,
 * so several server instances on one PostgreSQL database run it once).
 */
import type { ExpressionBuilder, Kysely } from 'kysely';
import { enqueueJob } from '../jobs/queue.js';
import type { JobHandlers } from '../jobs/runner.js';
import type { BlobStore } from './blobs.js';
import type { Database } from './schema.js';

export const BLOB_GC_JOB = 'blobs.collect';
export const BLOB_GC_GRACE_MS = 60 * 60 * 1000;
const EVERY_MS = 60 * 60 * 1000;

const HASHES = /[0-9a-f]{64}/g;

export interface BlobGcResult {
  readonly examined: number;
  readonly deleted: readonly string[];
}

/**
 * Retention (migration 0025): the rows of an envelope whose documents were purged (envelopes.purged_at) keep their
 * SHA-256 as a record but are no references any more, nor is a workspace document marked purged, unless an
 * envelope not purged attached it meanwhile. The certificate of completion (envelopes.certificate_sha256) always
 * is one. Template versions name their documents by SHA-256 in their definition: a reference, so a PDF a template
 * shares with a purged envelope stays.
 */
const LIVE_ENVELOPE = (eb: ExpressionBuilder<Database, 'envelopes'>) => eb('envelopes.purged_at', 'is', null);

/** A workspace document's bytes are needed: it is not purged, or an envelope not purged uses it. */
function documentsInUse(db: Kysely<Database>) {
  return db
    .selectFrom('documents')
    .select('documents.sha256 as v')
    .where((eb) =>
      eb.or([
        eb('documents.purged_at', 'is', null),
        eb.exists(
          eb
            .selectFrom('envelope_documents')
            .innerJoin('envelopes', 'envelopes.id', 'envelope_documents.envelope_id')
            .select('envelopes.id')
            .whereRef('envelope_documents.document_id', '=', 'documents.id')
            .where('envelopes.purged_at', 'is', null),
        ),
      ]),
    );
}

/** Every blob name referenced anywhere: columns that hold one, and JSON texts that may name some. */
async function referencedBlobs(db: Kysely<Database>): Promise<Set<string>> {
  const seen = new Set<string>();
  const add = (value: string | null | undefined) => {
    if (value) for (const match of value.matchAll(HASHES)) seen.add(match[0]);
  };
  for (const row of await documentsInUse(db).execute()) add(row.v);
  for (const row of await db
    .selectFrom('envelope_documents')
    .innerJoin('envelopes', 'envelopes.id', 'envelope_documents.envelope_id')
    .select('envelope_documents.current_sha256 as v')
    .where('envelope_documents.current_sha256', 'is not', null)
    .where(LIVE_ENVELOPE)
    .execute()) {
    add(row.v);
  }
  for (const row of await db
    .selectFrom('document_revisions')
    .innerJoin('envelopes', 'envelopes.id', 'document_revisions.envelope_id')
    .select('document_revisions.sha256 as v')
    .where(LIVE_ENVELOPE)
    .execute()) {
    add(row.v);
  }
  for (const row of await db
    .selectFrom('envelopes')
    .select('certificate_sha256 as v')
    .where('certificate_sha256', 'is not', null)
    .execute()) {
    add(row.v);
  }
  for (const row of await db
    .selectFrom('recipients')
    .innerJoin('envelopes', 'envelopes.id', 'recipients.envelope_id')
    .select(['recipients.prepared_sha256', 'recipients.act_details'])
    .where(LIVE_ENVELOPE)
    .execute()) {
    add(row.prepared_sha256);
    add(row.act_details);
  }
  for (const row of await outboxInUse(db).select('outbox_mail.attachments as v').execute()) add(row.v);
  for (const row of await db.selectFrom('template_versions').select('definition as v').execute()) add(row.v);
  return seen;
}

/** Mails of no envelope, or of one not purged (a purged envelope's completion mail no longer keeps its PDFs). */
function outboxInUse(db: Kysely<Database>) {
  return db
    .selectFrom('outbox_mail')
    .leftJoin('envelopes', 'envelopes.id', 'outbox_mail.envelope_id')
    .where((eb) => eb.or([eb('outbox_mail.envelope_id', 'is', null), eb('envelopes.purged_at', 'is', null)]));
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

/** Enqueues the run for the hour slot after `now` (idempotent: one job per slot). */
export async function scheduleBlobGc(db: Kysely<Database>, now: Date, delayMs = EVERY_MS): Promise<void> {
  const runAt = new Date(Math.ceil((now.getTime() + delayMs) / EVERY_MS) * EVERY_MS);
  await enqueueJob(db, {
    kind: BLOB_GC_JOB,
    payload: {},
    runAt,
    dedupeKey: `${BLOB_GC_JOB}:${runAt.toISOString()}`,
    now,
  });
}

export function blobGcJobHandlers(deps: { db: Kysely<Database>; blobs: BlobStore; now: () => Date }): JobHandlers {
  return {
    [BLOB_GC_JOB]: async () => {
      const now = deps.now();
      await collectUnreferencedBlobs(deps.db, deps.blobs, { now });
      await scheduleBlobGc(deps.db, now);
    },
  };
}
