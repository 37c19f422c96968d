/**
 * `mohar backup DIR`, `mohar backup verify [DIR | --live]`, `mohar backup hold-webhooks` and `mohar restore DIR`
 * (docs/operations.md, "Backup and restore"). The passphrase that encrypts the keys is read like a token PIN
 * (secret-input.ts): from a prompt with echo off, or from the first line of stdin; never from the command line.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { Kysely } from 'kysely';
import { MoharError } from '../common/errors.js';
import { holdUnfinishedWebhooks } from '../server/backup/hold-webhooks.js';
import { restoreBackup } from '../server/backup/restore-backup.js';
import { requireDatabaseFile, takeBackup } from '../server/backup/take-backup.js';
import { verifyBackupDirectory, verifyLive, type VerifyReport } from '../server/backup/verify-backup.js';
import type { Config } from '../server/config.js';
import type { BlobStore } from '../server/storage/blobs.js';
import { openBlobStore } from '../server/storage/open-blobs.js';
import type { Database } from '../server/storage/schema.js';
import { connectStorage } from '../server/storage/connect.js';
import { readSecret } from './secret-input.js';

const out = (line: string) => process.stdout.write(`${line}\n`);

/** At a terminal the passphrase of a new backup is asked twice: a typo would make the backup unrestorable. */
async function newPassphrase(): Promise<string> {
  const passphrase = await readSecret('Backup passphrase: ');
  if (passphrase === '') throw new MoharError('bad_request', 'the backup passphrase is empty');
  if (process.stdin.isTTY && (await readSecret('Same passphrase again: ')) !== passphrase) {
    throw new MoharError('bad_request', 'the two passphrases differ; nothing was written');
  }
  return passphrase;
}

function printReport(what: string, report: VerifyReport): void {
  for (const problem of report.problems) out(`PROBLEM  ${problem}`);
  out(
    `${what}: ${report.blobs} blob${report.blobs === 1 ? '' : 's'} re-hashed, ${report.envelopes} audit chain${report.envelopes === 1 ? '' : 's'} checked, ${report.problems.length} problem${report.problems.length === 1 ? '' : 's'}`,
  );
  process.exitCode = report.problems.length > 0 ? 1 : 0;
}

/** Runs `use` with the installation's database and the blob store its settings name (files, table or S3 bucket). */
async function withInstallation<T>(
  config: Config,
  use: (db: Kysely<Database>, blobs: BlobStore) => Promise<T>,
): Promise<T> {
  if (config.databaseUrl === undefined) await requireDatabaseFile(config.dataDir);
  const storage = connectStorage({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 2 });
  const store = openBlobStore(config.blobStore, { db: storage.db, dataDir: config.dataDir, s3: config.s3 });
  try {
    return await use(storage.db, store.blobs);
  } finally {
    store.close();
    await storage.close();
  }
}

function verifyInstallation(config: Config): Promise<VerifyReport> {
  return withInstallation(config, (db, blobs) => verifyLive(db, blobs));
}

export function backupCommands(program: Command, loadConfig: () => Config): void {
  const backup = program
    .command('backup')
    .description(
      'copy a running SQLite installation into DIR (new or empty): the database by SQLite online backup, every blob it names with its hash, the keys encrypted with a passphrase read from a prompt or stdin',
    )
    .argument('[dir]', 'where to write the backup (a directory named verify: write ./verify)')
    .action(async (dir: string | undefined) => {
      if (dir === undefined) {
        throw new MoharError('bad_request', 'name the directory to back up into: mohar backup DIR');
      }
      const config = loadConfig();
      const passphrase = await newPassphrase();
      const manifest = await withInstallation(config, (_db, blobs) =>
        takeBackup({
          config,
          blobs,
          target: resolve(dir),
          passphrase,
          log: (line) => process.stderr.write(`${line}\n`),
        }),
      );
      out(
        `backup of ${manifest.createdAt} in ${resolve(dir)}: database ${manifest.database.size} bytes, ${manifest.blobs.length} blobs, keys: ${manifest.keys.files.length} file(s)${manifest.keys.secretKey === 'environment' ? ' (MOHAR_SECRET_KEY is set: keep it with the backup yourself)' : ''}`,
      );
    });
  backup
    .command('verify')
    .description(
      're-hash every blob and check every audit chain of a backup DIR, or with --live of the configured installation (SQLite or PostgreSQL); exits 1 on any problem',
    )
    .argument('[dir]', 'the backup directory')
    .option('--live', 'check the configured installation instead of a backup')
    .action(async (dir: string | undefined, options: { live?: boolean }) => {
      if (options.live === true) {
        if (dir !== undefined) {
          throw new MoharError('bad_request', 'give either a backup directory or --live, not both');
        }
        printReport('installation', await verifyInstallation(loadConfig()));
        return;
      }
      if (dir === undefined) throw new MoharError('bad_request', 'name a backup directory, or --live');
      printReport(`backup ${resolve(dir)}`, await verifyBackupDirectory(resolve(dir)));
    });
  backup
    .command('hold-webhooks')
    .description(
      'after restoring a PostgreSQL dump, before mohar serve: hold the webhook deliveries it left unfinished (mohar restore does this itself)',
    )
    .action(async () => {
      const config = loadConfig();
      const storage = connectStorage({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 1 });
      try {
        out(`held ${await holdUnfinishedWebhooks(storage.db, new Date())} unfinished webhook deliveries`);
      } finally {
        await storage.close();
      }
    });

  program
    .command('restore')
    .description(
      'restore a backup DIR into an empty data dir (MOHAR_DATA_DIR or --data-dir) after checking every hash; the passphrase is read from a prompt or stdin',
    )
    .argument('<dir>', 'the backup directory')
    .option('--data-dir <path>', 'the data dir to restore into (default MOHAR_DATA_DIR); must be new or empty')
    .option(
      '--resend-webhooks',
      'leave unfinished webhook deliveries pending instead of holding them (only when the original sent nothing after the backup)',
    )
    .action(async (dir: string, options: { dataDir?: string; resendWebhooks?: boolean }) => {
      const loaded = loadConfig();
      const config = options.dataDir === undefined ? loaded : { ...loaded, dataDir: resolve(options.dataDir) };
      const passphrase = await readSecret('Backup passphrase: ');
      const result = await restoreBackup({
        config,
        source: resolve(dir),
        passphrase,
        resendWebhooks: options.resendWebhooks === true,
      });
      out(
        `restored into ${config.dataDir}: the database, ${result.blobs} blobs, ${result.keyFiles} key file(s); ${result.heldWebhooks} unfinished webhook deliver${result.heldWebhooks === 1 ? 'y' : 'ies'} held (redeliver them from the developer portal if the receiver did not get them)`,
      );
    });
}
