/**
 * The blob collector (storage/blob-gc.ts) as the durable job `blobs.collect`, hourly: each run enqueues the next
 * (one per hour slot, deduped, so several server instances on one PostgreSQL database run it once).
 */
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import { defineJob, enqueue, jobKind } from '../../jobs/definition.js';
import { collectUnreferencedBlobs } from '../../storage/blob-gc.js';
import type { BlobStore } from '../../storage/blobs.js';
import type { Database } from '../../storage/schema.js';

export const BLOB_GC_JOB = jobKind('blobs.collect', Type.Object({}));
const EVERY_MS = 60 * 60 * 1000;

/** Enqueues the run for the hour slot after `now` (idempotent: one job per slot). */
export async function scheduleBlobGc(db: Kysely<Database>, now: Date, delayMs = EVERY_MS): Promise<void> {
  const runAt = new Date(Math.ceil((now.getTime() + delayMs) / EVERY_MS) * EVERY_MS);
  await enqueue(db, BLOB_GC_JOB, {}, { runAt, dedupeKey: `${BLOB_GC_JOB.kind}:${runAt.toISOString()}`, now });
}

export const blobGcJob = defineJob(
  BLOB_GC_JOB,
  async (deps: { db: Kysely<Database>; blobs: BlobStore; now: () => Date }) => {
    const now = deps.now();
    await collectUnreferencedBlobs(deps.db, deps.blobs, { now });
    await scheduleBlobGc(deps.db, now);
  },
);
