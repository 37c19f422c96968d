/** File steps shared by backup and restore: hashing, an empty target, durable writes. */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { MoharError } from '../../common/errors.js';
import type { FileEntry } from './manifest.js';

/** SHA-256 and size of a file, streamed (a database copy may be large); undefined when there is no such file. */
export async function hashFile(path: string): Promise<FileEntry | undefined> {
  const hash = createHash('sha256');
  let size = 0;
  try {
    for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
      hash.update(chunk);
      size += chunk.length;
    }
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return undefined;
    throw error;
  }
  return { sha256: hash.digest('hex'), size };
}

/** Creates `directory` (and its parents), or accepts an existing empty one; backup_target_not_empty otherwise. */
export async function ensureEmptyDirectory(directory: string, what: string): Promise<void> {
  await mkdir(directory, { recursive: true, mode: 0o700 });
  const entries = await readdir(directory);
  if (entries.length > 0) {
    throw new MoharError(
      'backup_target_not_empty',
      `${what} ${directory} is not empty (${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}); name a new or empty directory`,
    );
  }
}

/** Writes a whole file, flushed to disk, creating its directory. */
export async function writeDurably(path: string, bytes: Uint8Array | string, mode = 0o600): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFile(path, bytes, { flush: true, mode });
}
