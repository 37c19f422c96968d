/**
 * `mohar blobs migrate --to s3|file|database [--from …]`: copies every stored PDF into another blob store and verifies
 * each there by its SHA-256 (server/storage/blob-migrate.ts). Resumable: run it again after an interruption and it
 * copies only what is not there yet. It changes no setting: the operator switches MOHAR_BLOB_STORE afterwards.
 * Exit code 0 when every blob a row names is in the target, 1 when some were missing already in the source.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { BLOB_STORE_KINDS, type BlobStoreKind } from '../server/config-blobs.js';
import type { Config } from '../server/config.js';
import { migrateBlobs, type BlobMigrateSummary, type BlobProgress } from '../server/storage/blob-migrate.js';
import { connectStorage } from '../server/storage/connect.js';
import { migrateToLatest } from '../server/storage/migrations/index.js';
import type { BlobStore } from '../server/storage/blobs.js';
import { openBlobStore, type OpenedBlobStore } from '../server/storage/open-blobs.js';

export interface BlobsMigrateOptions {
  readonly to: BlobStoreKind;
  /** The store to copy from; default: the configured MOHAR_BLOB_STORE. */
  readonly from?: BlobStoreKind;
  /** Tests: stops the run before the next blob, as an interruption would. */
  readonly signal?: AbortSignal;
}

/** A line for every blob copied or missing, and one every PROGRESS_EVERY blobs, so a long run shows it is alive. */
const PROGRESS_EVERY = 100;

function storeKind(value: string): BlobStoreKind {
  const kind = BLOB_STORE_KINDS.find((k) => k === value);
  if (kind === undefined) throw new InvalidArgumentError(`must be one of ${BLOB_STORE_KINDS.join(', ')}`);
  return kind;
}

export function blobsCommands(program: Command, loadConfig: () => Config): void {
  const blobs = program.command('blobs').description('the stored PDFs (blob store)');
  blobs
    .command('migrate')
    .description('copy every stored PDF into another blob store and verify it there; run again to resume')
    .requiredOption('--to <store>', `the blob store to copy into: ${BLOB_STORE_KINDS.join(', ')}`, storeKind)
    .option('--from <store>', 'the blob store to copy from (default: MOHAR_BLOB_STORE)', storeKind)
    .action(async (options: BlobsMigrateOptions) => {
      const summary = await blobsMigrateCommand(loadConfig(), options);
      process.exitCode = summary.missing.length > 0 ? 1 : 0;
    });
}

function progressLine(progress: BlobProgress): string | undefined {
  const at = `[${progress.done}/${progress.total}]`;
  if (progress.outcome === 'copied') return `${at} copied  ${progress.sha256}`;
  if (progress.outcome === 'missing' && progress.named) return `${at} MISSING ${progress.sha256} (in no store)`;
  if (progress.done % PROGRESS_EVERY === 0 || progress.done === progress.total) return `${at} checked`;
  return undefined;
}

function summaryLines(summary: BlobMigrateSummary, from: BlobStoreKind, to: BlobStoreKind): string[] {
  const lines = [
    `${summary.total} names checked: ${summary.copied} copied, ${summary.present} already in ${to} and verified, ` +
      `${summary.missing.length} missing, ${summary.notBlobs} hashes in texts that are not blobs`,
  ];
  if (summary.missing.length > 0) {
    lines.push(`${summary.missing.length} blobs named by rows are in neither store (lost before this run)`);
  }
  lines.push(
    `Every blob is now in ${to}. The servers still use MOHAR_BLOB_STORE=${from}: stop them, run this command once ` +
      `more (it copies what they stored meanwhile), set MOHAR_BLOB_STORE=${to} and start them again. ` +
      `The ${from} store is left as it was.`,
  );
  return lines;
}

export async function blobsMigrateCommand(
  config: Config,
  options: BlobsMigrateOptions,
  out: NodeJS.WritableStream = process.stdout,
): Promise<BlobMigrateSummary> {
  const from = options.from ?? config.blobStore;
  const to = options.to;
  if (from === to) throw new Error(`--to ${to} is the store the blobs are copied from`);
  if ((from === 's3' || to === 's3') && config.s3 === undefined) {
    throw new Error(
      'the S3 blob store needs MOHAR_S3_BUCKET, MOHAR_S3_ACCESS_KEY_ID and the other MOHAR_S3_* settings',
    );
  }
  const storage = connectStorage({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 2 });
  const opened: OpenedBlobStore[] = [];
  try {
    // The same schema as the server's (as every database command of the CLI does): the tables that name blobs.
    await migrateToLatest(storage.db);
    const sources = { db: storage.db, dataDir: config.dataDir, s3: config.s3 };
    opened.push(openBlobStore(from, sources), openBlobStore(to, sources));
    const [source, target] = opened.map((store) => store.blobs) as [BlobStore, BlobStore];
    // Fail at once, before listing anything, when a store does not answer (a wrong endpoint, bucket or key).
    await source.probe();
    await target.probe();
    out.write(`copying blobs from ${from} to ${to}\n`);
    const summary = await migrateBlobs(storage.db, source, target, {
      ...(options.signal ? { signal: options.signal } : {}),
      onBlob: (progress) => {
        const line = progressLine(progress);
        if (line !== undefined) out.write(`${line}\n`);
      },
    });
    for (const line of summaryLines(summary, from, to)) out.write(`${line}\n`);
    return summary;
  } finally {
    for (const store of opened) store.close();
    await storage.close();
  }
}
