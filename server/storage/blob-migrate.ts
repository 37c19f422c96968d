/**
 * Copies every blob from one store to another (`mohar blobs migrate`): each blob a row names and each the source holds,
 * verified by its SHA-256 in the target. Resumable: a blob the target already holds whole is checked, not copied, so a
 * run stopped half way (or one made while the servers still wrote to the source) is finished by running it again.
 */
import type { Kysely } from 'kysely';
import { blobReferences } from './blob-references.js';
import { sha256Hex, type BlobStore } from './blobs.js';
import type { Database } from './schema.js';

/** copied; present: already whole in the target; missing: in no store (a lost blob, or a hash in a text). */
export type BlobOutcome = 'copied' | 'present' | 'missing';

export interface BlobProgress {
  readonly sha256: string;
  readonly outcome: BlobOutcome;
  /** True when a row's column names it (it must exist); false for a hash only mentioned in a JSON text. */
  readonly named: boolean;
  readonly done: number;
  readonly total: number;
}

export interface BlobMigrateSummary {
  readonly total: number;
  readonly copied: number;
  readonly present: number;
  /** Names a row's column holds that neither store has: lost before the migration. */
  readonly missing: readonly string[];
  /** Hashes mentioned in JSON texts that are not blobs in either store (a certificate's digest): nothing to copy. */
  readonly notBlobs: number;
}

export interface BlobMigrateOptions {
  readonly onBlob?: (progress: BlobProgress) => void;
  /** Stops before the next blob when aborted (tests interrupt a run this way; a killed process stops anywhere). */
  readonly signal?: AbortSignal;
}

const ANY_TIME = () => new Date(Date.now() + 24 * 60 * 60 * 1000);

/** The bytes the store holds under `sha256` if they hash to it; undefined when absent or damaged. */
async function verified(store: BlobStore, sha256: string): Promise<Buffer | undefined> {
  if (!(await store.has(sha256))) return undefined;
  try {
    const bytes = await store.get(sha256);
    return sha256Hex(bytes) === sha256 ? bytes : undefined;
  } catch {
    return undefined;
  }
}

/** Every name to look at, in a stable order: the rows' names first (what must not be lost), then the source's. */
async function namesToCopy(db: Kysely<Database>, source: BlobStore): Promise<{ names: string[]; named: Set<string> }> {
  const { named: inColumns, mentioned: inTexts } = await blobReferences(db);
  const all = new Set([...inColumns, ...inTexts]);
  // Everything stored before a time in the future is everything the source holds.
  for await (const name of source.storedBefore(ANY_TIME())) all.add(name);
  return { names: [...all].sort(), named: new Set(inColumns) };
}

/** Copies one blob if the target lacks it; throws when the copy does not read back whole. */
async function copyOne(source: BlobStore, target: BlobStore, sha256: string): Promise<BlobOutcome> {
  if ((await verified(target, sha256)) !== undefined) return 'present';
  const bytes = await verified(source, sha256);
  if (bytes === undefined) return 'missing';
  // A damaged copy in the target (a run killed mid-write on a store without atomic writes, bytes changed in the
  // bucket) would only be marked fresh by put(), which never rewrites a name it holds: remove it first.
  if (await target.has(sha256)) await target.deleteIfStoredBefore(sha256, ANY_TIME());
  await target.put(bytes);
  if ((await verified(target, sha256)) === undefined) {
    throw new Error(`blob ${sha256} does not read back whole from the target store after copying`);
  }
  return 'copied';
}

export async function migrateBlobs(
  db: Kysely<Database>,
  source: BlobStore,
  target: BlobStore,
  options: BlobMigrateOptions = {},
): Promise<BlobMigrateSummary> {
  const { names, named } = await namesToCopy(db, source);
  const counts = { copied: 0, present: 0, notBlobs: 0 };
  const missing: string[] = [];
  let done = 0;
  for (const sha256 of names) {
    options.signal?.throwIfAborted();
    const outcome = await copyOne(source, target, sha256);
    done++;
    if (outcome === 'missing') {
      if (named.has(sha256)) missing.push(sha256);
      else counts.notBlobs++;
    } else {
      counts[outcome]++;
    }
    options.onBlob?.({ sha256, outcome, named: named.has(sha256), done, total: names.length });
  }
  return { total: names.length, copied: counts.copied, present: counts.present, missing, notBlobs: counts.notBlobs };
}
