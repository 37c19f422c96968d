/**
 * Content-addressed storage of PDF bytes: the key is the SHA-256 of the bytes, so a stored
 * revision can never change under its name. Files under the data dir (SQLite installations) or
 * the `blobs` table (PostgreSQL, shared by every server instance).
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { MoharError } from '../../common/errors.js';
import type { Database } from './schema.js';

export interface BlobStore {
  /** Stores bytes (idempotent) and returns their SHA-256 (lower-case hex). */
  put(bytes: Uint8Array): Promise<string>;
  /** Returns exactly the bytes stored under sha256; blob_missing if absent. */
  get(sha256: string): Promise<Buffer>;
  has(sha256: string): Promise<boolean>;
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

const SHA256 = /^[0-9a-f]{64}$/;

function checkName(sha256: string): void {
  if (!SHA256.test(sha256)) throw new MoharError('blob_missing', `not a SHA-256 name: ${sha256}`);
}

export class FileBlobStore implements BlobStore {
  constructor(private readonly root: string) {}

  private path(sha256: string): string {
    return join(this.root, sha256.slice(0, 2), sha256.slice(2, 4), sha256);
  }

  async put(bytes: Uint8Array): Promise<string> {
    const sha256 = sha256Hex(bytes);
    const target = this.path(sha256);
    if (await this.has(sha256)) return sha256;
    await mkdir(join(target, '..'), { recursive: true });
    // Write to a temporary name and rename: a crash never leaves a half-written blob under its hash.
    const temporary = `${target}.${randomUUID()}.tmp`;
    await writeFile(temporary, bytes, { flush: true });
    await rename(temporary, target);
    return sha256;
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
}

export class DatabaseBlobStore implements BlobStore {
  constructor(private readonly db: Kysely<Database>) {}

  async put(bytes: Uint8Array): Promise<string> {
    const sha256 = sha256Hex(bytes);
    await this.db
      .insertInto('blobs')
      .values({ sha256, size: bytes.byteLength, data: bytes, created_at: new Date().toISOString() })
      .onConflict((oc) => oc.column('sha256').doNothing())
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
}
