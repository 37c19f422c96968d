/**
 * `mohar restore DIR` into an empty data dir, for a SQLite installation: check everything before writing anything
 * (the manifest, the size and SHA-256 of the database copy and of every blob, the passphrase on the keys), then
 * write the blobs, the keys and, last, the database, and hold the webhook deliveries the backup left unfinished
 * (hold-webhooks.ts). `mohar serve` starts on the result; its migrations bring an older backup up to date.
 */
import { chmod, copyFile, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { MoharError } from '../../common/errors.js';
import type { Config } from '../config.js';
import { blobFilePath } from '../storage/blobs.js';
import { ensureEmptyDirectory, writeDurably } from './files.js';
import { holdUnfinishedWebhooks } from './hold-webhooks.js';
import { BLOBS_DIR, DATABASE_FILE, manifestDigest, readManifest, safeRelativePath } from './manifest.js';
import { openWithPassphrase } from './passphrase-box.js';
import { openSqliteFile } from './sqlite-file.js';
import { checkBackupFiles } from './verify-backup.js';

export interface RestoreOptions {
  readonly config: Pick<Config, 'dataDir' | 'databaseUrl'>;
  readonly source: string;
  readonly passphrase: string;
  /** Leave unfinished webhook deliveries pending: the original was stopped at the backup and sent nothing after. */
  readonly resendWebhooks?: boolean;
  readonly now?: () => Date;
}

export interface RestoreResult {
  readonly blobs: number;
  readonly keyFiles: number;
  readonly heldWebhooks: number;
}

export async function restoreBackup(options: RestoreOptions): Promise<RestoreResult> {
  const { config, source } = options;
  if (config.databaseUrl !== undefined) {
    throw new MoharError(
      'bad_request',
      'MOHAR_DATABASE_URL is set: a PostgreSQL installation is restored with pg_restore as docs/operations.md describes',
    );
  }
  await ensureEmptyDirectory(config.dataDir, 'the data directory');
  const manifest = await readManifest(source);
  const problems = await checkBackupFiles(source, manifest);
  if (problems.length > 0) {
    throw new MoharError('backup_invalid', `the backup does not verify, nothing was written: ${problems.join('; ')}`);
  }
  const keys = JSON.parse(
    (await openWithPassphrase(manifest.keys.box, options.passphrase, manifestDigest(manifest))).toString('utf8'),
  ) as Record<string, string>;

  for (const { sha256 } of manifest.blobs) {
    const bytes = await readFile(blobFilePath(join(source, BLOBS_DIR), sha256));
    await writeDurably(blobFilePath(join(config.dataDir, BLOBS_DIR), sha256), bytes, 0o644);
  }
  for (const path of manifest.keys.files) {
    const content = keys[path];
    if (content === undefined || !safeRelativePath(path)) {
      throw new MoharError('backup_invalid', `the key file ${path} is listed but not in the encrypted keys`);
    }
    await writeDurably(join(config.dataDir, path), Buffer.from(content, 'base64'), 0o600);
  }
  const heldWebhooks = await writeDatabase(options, join(source, DATABASE_FILE));
  await chmod(config.dataDir, 0o700);
  return { blobs: manifest.blobs.length, keyFiles: manifest.keys.files.length, heldWebhooks };
}

/** The database under a temporary name, its webhooks held, then renamed into place: no server sees it half done. */
async function writeDatabase(options: RestoreOptions, copy: string): Promise<number> {
  const temporary = join(options.config.dataDir, `${DATABASE_FILE}.restoring`);
  await copyFile(copy, temporary);
  let held = 0;
  if (!options.resendWebhooks) {
    const restored = openSqliteFile(temporary, { readonly: false });
    try {
      held = await holdUnfinishedWebhooks(restored.db, (options.now ?? (() => new Date()))());
    } finally {
      await restored.close();
    }
  }
  await chmod(temporary, 0o600);
  await rename(temporary, join(options.config.dataDir, DATABASE_FILE));
  return held;
}
