/**
 * `mohar backup DIR` for a SQLite installation, while its server runs:
 *   1. snapshot the database (SQLite's online backup, sqlite-file.ts): the backup is the installation as of one commit;
 *   2. copy the blobs the snapshot refers to, checking each against its name (blobs never change under a name, so
 *      copying them after the snapshot is consistent; blobs stored later are not needed);
 *   3. encrypt the keys with the passphrase and write the manifest last.
 *
 * Can a blob the snapshot refers to vanish before it is copied? Only through the blob collector, and it deletes only
 * blobs that the LIVE database no longer names and that were last stored more than an hour ago: e.g. a DSC signer's
 * prepared document replaced by a newer one after the snapshot. Then the copy misses a blob the snapshot needs, so
 * the backup takes a new snapshot (which no longer names it) and copies what is still missing; blobs already copied
 * stay. After three snapshots that each miss a blob, the store is damaged and the backup fails.
 */
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { isMoharError, MoharError } from '../../common/errors.js';
import type { Config } from '../config.js';
import { SECRET_KEY_FILE } from '../seal/secret-box.js';
import { blobReferences } from '../storage/blob-references.js';
import { blobFilePath, sha256Hex, type BlobStore } from '../storage/blobs.js';
import { VERSION } from '../version.js';
import { ensureEmptyDirectory, hashFile, writeDurably } from './files.js';
import {
  BLOBS_DIR,
  DATABASE_FILE,
  FORMAT,
  FORMAT_VERSION,
  MANIFEST_FILE,
  manifestDigest,
  type BackupManifest,
  type FileEntry,
  type UnboxedManifest,
} from './manifest.js';
import { sealWithPassphrase } from './passphrase-box.js';
import { openSqliteFile, snapshotSqlite } from './sqlite-file.js';

const SNAPSHOT_ATTEMPTS = 3;
/** Data-dir folders whose files are keys too: the built-in eSign simulator's CA and ASP keys. */
const KEY_FOLDERS = ['esign-sandbox'];

export interface BackupOptions {
  readonly config: Pick<Config, 'dataDir' | 'databaseUrl' | 'secretKey'>;
  /** The live blob store of the installation (FileBlobStore over the data dir's blobs/). */
  readonly blobs: BlobStore;
  readonly target: string;
  readonly passphrase: string;
  readonly now?: () => Date;
  /** Progress lines for the operator. */
  readonly log?: (line: string) => void;
}

export async function takeBackup(options: BackupOptions): Promise<BackupManifest> {
  const { config, target } = options;
  const log = options.log ?? (() => undefined);
  if (config.databaseUrl !== undefined) {
    throw new MoharError(
      'bad_request',
      'this installation uses PostgreSQL: back it up with pg_dump as docs/operations.md describes (mohar backup is for SQLite installations)',
    );
  }
  if (options.passphrase === '') throw new MoharError('bad_request', 'the backup passphrase is empty');
  await requireDatabaseFile(config.dataDir);
  await ensureEmptyDirectory(target, 'the backup directory');
  const createdAt = (options.now ?? (() => new Date()))().toISOString();
  const { database, blobs } = await snapshotWithBlobs(options, log);
  const keys = await readKeys(config);
  const unboxed: UnboxedManifest = {
    format: FORMAT,
    formatVersion: FORMAT_VERSION,
    moharVersion: VERSION,
    createdAt,
    database: { kind: 'sqlite', file: DATABASE_FILE, ...database },
    blobs,
    keys: { secretKey: keys.secretKey, files: [...keys.files.keys()] },
  };
  const plaintext = Buffer.from(
    JSON.stringify(Object.fromEntries([...keys.files].map(([p, b]) => [p, b.toString('base64')]))),
  );
  const box = await sealWithPassphrase(plaintext, options.passphrase, manifestDigest(unboxed));
  const manifest: BackupManifest = { ...unboxed, keys: { ...unboxed.keys, box } };
  await writeDurably(join(target, MANIFEST_FILE), `${JSON.stringify(manifest, null, 1)}\n`);
  log(`backup written: the database (${database.size} bytes), ${blobs.length} blobs, ${keys.files.size} key files`);
  return manifest;
}

/** A data dir without the database is a wrong MOHAR_DATA_DIR: say so rather than SQLite's "unable to open". */
export async function requireDatabaseFile(dataDir: string): Promise<void> {
  const path = join(dataDir, DATABASE_FILE);
  if (!(await stat(path).catch(() => undefined))?.isFile()) {
    throw new MoharError('bad_request', `no database at ${path}: is MOHAR_DATA_DIR the installation's data dir?`);
  }
}

/** Steps 1 and 2, again on a new snapshot when a blob the last one named was collected meanwhile. */
async function snapshotWithBlobs(options: BackupOptions, log: (line: string) => void) {
  const copy = join(options.target, DATABASE_FILE);
  const copied = new Map<string, FileEntry>();
  for (let attempt = 1; ; attempt++) {
    await rm(copy, { force: true });
    await snapshotSqlite(join(options.config.dataDir, DATABASE_FILE), copy);
    const snapshot = openSqliteFile(copy, { readonly: true });
    const references = await blobReferences(snapshot.db).finally(() => snapshot.close());
    const missing = await copyBlobs(options, references.named, copied, { required: true });
    if (missing.length === 0) {
      await copyBlobs(options, references.mentioned, copied, { required: false });
      const wanted = new Set([...references.named, ...references.mentioned].filter((s) => copied.has(s)));
      await dropUnwanted(options.target, copied, wanted);
      const database = await hashFile(copy);
      return { database: database!, blobs: [...copied.values()].sort((a, b) => (a.sha256 < b.sha256 ? -1 : 1)) };
    }
    if (attempt === SNAPSHOT_ATTEMPTS) {
      throw new MoharError(
        'blob_missing',
        `${missing.length} blob(s) named by the database are missing from the blob store (first: ${missing[0]}); run mohar backup verify --live`,
      );
    }
    log(`${missing.length} blob(s) were collected after the snapshot; taking a new snapshot`);
  }
}

/** Copies the blobs not copied yet; returns the ones the store does not have. */
async function copyBlobs(
  options: BackupOptions,
  names: ReadonlySet<string>,
  copied: Map<string, FileEntry>,
  { required }: { required: boolean },
): Promise<string[]> {
  const missing: string[] = [];
  for (const sha256 of [...names].sort()) {
    if (copied.has(sha256)) continue;
    let bytes: Buffer;
    try {
      bytes = await options.blobs.get(sha256);
    } catch (error) {
      if (!isMoharError(error, 'blob_missing')) throw error;
      if (required) missing.push(sha256);
      continue;
    }
    if (sha256Hex(bytes) !== sha256) {
      throw new MoharError(
        'blob_missing',
        `the stored blob ${sha256} does not hash to its name: the blob store is damaged`,
      );
    }
    await writeDurably(blobFilePath(join(options.target, BLOBS_DIR), sha256), bytes);
    copied.set(sha256, { sha256, size: bytes.length });
  }
  return missing;
}

/** Blobs copied for an earlier snapshot that the final one does not name. */
async function dropUnwanted(target: string, copied: Map<string, FileEntry>, wanted: ReadonlySet<string>) {
  for (const sha256 of [...copied.keys()]) {
    if (wanted.has(sha256)) continue;
    await rm(blobFilePath(join(target, BLOBS_DIR), sha256), { force: true });
    copied.delete(sha256);
  }
}

/** secret.key (unless MOHAR_SECRET_KEY is set) and the simulator's key files, by path relative to the data dir. */
async function readKeys(config: BackupOptions['config']) {
  const files = new Map<string, Buffer>();
  const secretKey: 'file' | 'environment' = config.secretKey === undefined ? 'file' : 'environment';
  if (secretKey === 'file') {
    const path = join(config.dataDir, SECRET_KEY_FILE);
    const bytes = await readFile(path).catch(() => undefined);
    if (bytes !== undefined) files.set(SECRET_KEY_FILE, bytes);
  }
  for (const folder of KEY_FOLDERS) {
    for (const path of await filesUnder(join(config.dataDir, folder))) {
      files.set(relative(config.dataDir, path).split('\\').join('/'), await readFile(path));
    }
  }
  return { secretKey, files };
}

async function filesUnder(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { recursive: true }).catch(() => [] as string[]);
  const files: string[] = [];
  for (const entry of entries.sort()) {
    const path = join(directory, entry);
    if ((await stat(path)).isFile()) files.push(path);
  }
  return files;
}
