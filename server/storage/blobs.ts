/**
 * Content-addressed storage of PDF bytes: the key is the SHA-256 of the bytes, so a stored
 * revision can never change under its name. Files under the data dir (SQLite installations), the `blobs` table
 * (PostgreSQL, shared by every server instance) or an S3-compatible bucket (s3-blobs.ts); chosen by
 * MOHAR_BLOB_STORE (open-blobs.ts).
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Kysely } from 'kysely';
import { MoharError } from '../../common/errors.js';
import type { Database } from './schema.js';

export interface BlobStore {
  /** Stores bytes (idempotent) and returns their SHA-256 (lower-case hex). */
  put(bytes: Uint8Array): Promise<string>;
  /** Returns exactly the bytes stored under sha256; blob_missing if absent. */
  get(sha256: string): Promise<Buffer>;
  has(sha256: string): Promise<boolean>;
  /**
   * Names of blobs last stored before `cutoff` (for the blob collector, server/jobs/blob-gc.ts). put() of
   * bytes already present counts as storing them again, so a blob that is being reused is never "old". A store that
   * cannot tell cheaply (S3: a listing shows LastModified, not the time of the last put) may name more; its
   * deleteIfStoredBefore is the exact check.
   */
  storedBefore(cutoff: Date): AsyncIterable<string>;
  /** Deletes the blob if it was still last stored before `cutoff`; true when it was deleted. */
  deleteIfStoredBefore(sha256: string, cutoff: Date): Promise<boolean>;
  /** Resolves when the store answers (readiness, GET /readyz); rejects with the reason otherwise. Cheap. */
  probe(): Promise<void>;
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Makes a directory's entries (a rename into it, a new subdirectory) durable: open it and fsync it. */
export async function fsyncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** A blob's name: a SHA-256 in lower-case hex. */
export const SHA256_NAME = /^[0-9a-f]{64}$/;
const SHA256 = SHA256_NAME;

/** Where a file blob store under `root` keeps a blob: two levels of directories by its first hex digits. */
export function blobFilePath(root: string, sha256: string): string {
  return join(root, sha256.slice(0, 2), sha256.slice(2, 4), sha256);
}

/** Refuses a name that is not a SHA-256 (a path, a key of something else) as blob_missing, like every store. */
export function checkName(sha256: string): void {
  if (!SHA256.test(sha256)) throw new MoharError('blob_missing', `not a SHA-256 name: ${sha256}`);
}

export class FileBlobStore implements BlobStore {
  constructor(
    private readonly root: string,
    readonly syncDirectory: (directory: string) => Promise<void> = fsyncDirectory,
  ) {}

  private path(sha256: string): string {
    return blobFilePath(this.root, sha256);
  }

  async put(bytes: Uint8Array): Promise<string> {
    const sha256 = sha256Hex(bytes);
    const target = this.path(sha256);
    if (await this.has(sha256)) {
      // Stored again: mark it fresh, so the blob collector's grace period starts over (see storedBefore).
      const now = new Date();
      await utimes(target, now, now).catch(() => undefined);
      if (await this.has(sha256)) return sha256;
    }
    const directory = dirname(target);
    const created = await mkdir(directory, { recursive: true });
    // Write to a temporary name and rename: a crash never leaves a half-written blob under its hash.
    const temporary = `${target}.${randomUUID()}.tmp`;
    try {
      await writeFile(temporary, bytes, { flush: true });
      await rename(temporary, target);
    } catch (error) {
      // A full disk (ENOSPC) stops the write part way: remove the truncated temporary file, which would
      // otherwise hold on to the space until someone found it.
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
    await this.syncEntries(directory, created);
    return sha256;
  }

  /**
   * A rename is durable only once its directory is synced, and a new directory only once its parent is:
   * sync the blob's directory, then the parent of each directory mkdir created (innermost first), so a
   * power loss after put() resolved cannot lose the blob an acknowledged signature refers to.
   */
  private async syncEntries(directory: string, createdTop: string | undefined): Promise<void> {
    await this.syncDirectory(directory);
    if (createdTop === undefined) return;
    for (let created = directory; ; created = dirname(created)) {
      await this.syncDirectory(dirname(created));
      if (created === createdTop || dirname(created) === created) return;
    }
  }

  async get(sha256: string): Promise<Buffer> {
    checkName(sha256);
    try {
      return await readFile(this.path(sha256));
    } catch (error) {
      throw new MoharError('blob_missing', `stored bytes ${sha256} are missing`, { cause: error });
    }
  }

  async has(sha256: string): Promise<boolean> {
    checkName(sha256);
    try {
      return (await stat(this.path(sha256))).isFile();
    } catch {
      return false;
    }
  }

  async *storedBefore(cutoff: Date): AsyncIterable<string> {
    for (const a of await readdir(this.root).catch(() => [] as string[])) {
      for (const b of await readdir(join(this.root, a)).catch(() => [] as string[])) {
        for (const name of await readdir(join(this.root, a, b)).catch(() => [] as string[])) {
          if (!SHA256.test(name)) continue; // temporary files of writes in progress
          const info = await stat(join(this.root, a, b, name)).catch(() => undefined);
          if (info && info.mtimeMs < cutoff.getTime()) yield name;
        }
      }
    }
  }

  async deleteIfStoredBefore(sha256: string, cutoff: Date): Promise<boolean> {
    checkName(sha256);
    // Move it aside first (atomic), then look at its time: a put() that touched it just before is seen here
    // (it is put back), and a put() after the move finds no blob and writes a fresh copy.
    const target = this.path(sha256);
    const aside = `${target}.${randomUUID()}.gc`;
    try {
      await rename(target, aside);
    } catch {
      return false;
    }
    if ((await stat(aside)).mtimeMs >= cutoff.getTime()) {
      if (await this.has(sha256)) await unlink(aside);
      else await rename(aside, target);
      return false;
    }
    await unlink(aside);
    return true;
  }

  async probe(): Promise<void> {
    // The root is made on the first put(); before that the data dir that will hold it must be there.
    const info = await stat(this.root).catch(async (error: unknown) => {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return stat(dirname(this.root));
      throw error;
    });
    if (!info.isDirectory()) throw new Error(`the blob store root ${this.root} is not a directory`);
  }
}

export class DatabaseBlobStore implements BlobStore {
  constructor(private readonly db: Kysely<Database>) {}

  async put(bytes: Uint8Array): Promise<string> {
    const sha256 = sha256Hex(bytes);
    await this.db
      .insertInto('blobs')
      .values({ sha256, size: bytes.byteLength, data: bytes, created_at: new Date().toISOString() })
      // Stored again: created_at moves, so the blob collector's grace period starts over (see storedBefore).
      .onConflict((oc) => oc.column('sha256').doUpdateSet((eb) => ({ created_at: eb.ref('excluded.created_at') })))
      .execute();
    return sha256;
  }

  async get(sha256: string): Promise<Buffer> {
    checkName(sha256);
    const row = await this.db.selectFrom('blobs').select('data').where('sha256', '=', sha256).executeTakeFirst();
    if (!row) throw new MoharError('blob_missing', `stored bytes ${sha256} are missing`);
    return Buffer.from(row.data);
  }

  async has(sha256: string): Promise<boolean> {
    checkName(sha256);
    const row = await this.db.selectFrom('blobs').select('sha256').where('sha256', '=', sha256).executeTakeFirst();
    return row !== undefined;
  }

  async *storedBefore(cutoff: Date): AsyncIterable<string> {
    let after = '';
    for (;;) {
      const rows = await this.db
        .selectFrom('blobs')
        .select('sha256')
        .where('created_at', '<', cutoff.toISOString())
        .where('sha256', '>', after)
        .orderBy('sha256')
        .limit(500)
        .execute();
      for (const row of rows) yield row.sha256;
      if (rows.length < 500) return;
      after = rows[rows.length - 1]!.sha256;
    }
  }

  async deleteIfStoredBefore(sha256: string, cutoff: Date): Promise<boolean> {
    checkName(sha256);
    const result = await this.db
      .deleteFrom('blobs')
      .where('sha256', '=', sha256)
      .where('created_at', '<', cutoff.toISOString())
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async probe(): Promise<void> {
    // Reads the table itself (not just `select 1`): a missing or unreadable blobs table fails here.
    await this.db.selectFrom('blobs').select('sha256').limit(1).execute();
  }
}
