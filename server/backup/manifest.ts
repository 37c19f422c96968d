/**
 * A backup directory: `manifest.json` (written last, so a directory without one is an unfinished backup), the
 * database copy `mohar.sqlite`, and `blobs/` laid out as the data dir's blob store. The manifest lists every file
 * with its SHA-256 and size; the keys (secret.key, the eSign simulator's files) are inside the manifest, encrypted
 * with the passphrase and bound to the rest of it (passphrase-box.ts).
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MoharError } from '../../common/errors.js';
import { canonicalJson } from '../audit/index.js';
import type { PassphraseBox } from './passphrase-box.js';

export const MANIFEST_FILE = 'manifest.json';
export const DATABASE_FILE = 'mohar.sqlite' as const;
export const BLOBS_DIR = 'blobs';
export const FORMAT = 'mohar-backup' as const;
export const FORMAT_VERSION = 1 as const;

export interface FileEntry {
  readonly sha256: string;
  readonly size: number;
}

export interface BackupManifest {
  readonly format: typeof FORMAT;
  readonly formatVersion: typeof FORMAT_VERSION;
  readonly moharVersion: string;
  readonly createdAt: string;
  /** Only SQLite installations are backed up by `mohar backup` (PostgreSQL: pg_dump, docs/operations.md). */
  readonly database: FileEntry & { readonly kind: 'sqlite'; readonly file: typeof DATABASE_FILE };
  readonly blobs: readonly FileEntry[];
  readonly keys: {
    /** 'file': secret.key is in the box; 'environment': MOHAR_SECRET_KEY was set, and the operator keeps it. */
    readonly secretKey: 'file' | 'environment';
    /** Paths (relative to the data dir) of the files in the box. */
    readonly files: readonly string[];
    readonly box: PassphraseBox;
  };
}

export type UnboxedManifest = Omit<BackupManifest, 'keys'> & { readonly keys: Omit<BackupManifest['keys'], 'box'> };

/** What the keys' box is bound to: the canonical JSON of the manifest without the box itself. */
export function manifestDigest(manifest: UnboxedManifest): string {
  const { keys, ...rest } = manifest;
  const unboxed = { ...rest, keys: { secretKey: keys.secretKey, files: keys.files } };
  return createHash('sha256').update(canonicalJson(unboxed)).digest('hex');
}

const SHA256 = /^[0-9a-f]{64}$/;

function validEntry(entry: unknown): entry is FileEntry {
  const e = entry as Partial<FileEntry> | null;
  return typeof e?.sha256 === 'string' && SHA256.test(e.sha256) && Number.isSafeInteger(e.size) && e.size! >= 0;
}

/** Reads and checks the shape of DIR/manifest.json; backup_invalid when it is absent or not ours. */
export async function readManifest(directory: string): Promise<BackupManifest> {
  let text: string;
  try {
    text = await readFile(join(directory, MANIFEST_FILE), 'utf8');
  } catch (error) {
    throw new MoharError(
      'backup_invalid',
      `${directory} has no ${MANIFEST_FILE}: it is not a Mohar backup, or the backup did not finish`,
      { cause: error },
    );
  }
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(text) as BackupManifest;
  } catch (error) {
    throw new MoharError('backup_invalid', `${MANIFEST_FILE} is not JSON`, { cause: error });
  }
  if (manifest?.format !== FORMAT || manifest.formatVersion !== FORMAT_VERSION) {
    throw new MoharError(
      'backup_invalid',
      `${MANIFEST_FILE} is not a Mohar backup manifest of format version ${FORMAT_VERSION}`,
    );
  }
  const shapeOk =
    manifest.database?.kind === 'sqlite' &&
    validEntry(manifest.database) &&
    Array.isArray(manifest.blobs) &&
    manifest.blobs.every(validEntry) &&
    Array.isArray(manifest.keys?.files) &&
    manifest.keys.files.every((f) => typeof f === 'string' && safeRelativePath(f)) &&
    typeof manifest.keys.box === 'object';
  if (!shapeOk) throw new MoharError('backup_invalid', `${MANIFEST_FILE} is damaged: an entry is missing or malformed`);
  return manifest;
}

/** A key file's path must stay inside the data dir it is restored into. */
export function safeRelativePath(path: string): boolean {
  return path !== '' && !path.startsWith('/') && !path.split(/[\\/]/).some((part) => part === '..' || part === '');
}
