/**
 * The numbered migrations, listed statically so they work from TypeScript sources and from the
 * compiled build alike. Append new ones; never edit a released one.
 */
import { Migrator, sql, type Migration, type MigrationProvider, type Kysely } from 'kysely';
import type { Database } from '../schema.js';
import * as m0001 from './0001_initial.js';
import * as m0002 from './0002_blobs.js';
import * as m0003 from './0003_jobs_mail.js';
import * as m0004 from './0004_audit.js';
import * as m0005 from './0005_seal.js';
import * as m0006 from './0006_workflow.js';
import * as m0007 from './0007_webhooks.js';
import * as m0008 from './0008_legacy.js';
import * as m0009 from './0009_sandbox.js';
import * as m0010 from './0010_field_editable.js';
import * as m0011 from './0011_templates.js';
import * as m0012 from './0012_bulk_sends.js';
import * as m0013 from './0013_envelope_list.js';
import * as m0014 from './0014_users.js';
import * as m0015 from './0015_created_by.js';
import * as m0016 from './0016_data_mode.js';
import * as m0017 from './0017_reminders_links.js';
import * as m0018 from './0018_token_family.js';
import * as m0019 from './0019_esign_transactions.js';
import * as m0020 from './0020_layout_by_reference.js';
import * as m0021 from './0021_idempotency_lease.js';
import * as m0022 from './0022_mail_settings.js';
import * as m0023 from './0023_verify_lookup.js';
import * as m0024 from './0024_retention.js';
import * as m0025 from './0025_partial_envelope_indexes.js';

export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0001_initial': m0001,
  '0002_blobs': m0002,
  '0003_jobs_mail': m0003,
  '0004_audit': m0004,
  '0005_seal': m0005,
  '0006_workflow': m0006,
  '0007_webhooks': m0007,
  '0008_legacy': m0008,
  '0009_sandbox': m0009,
  '0010_field_editable': m0010,
  '0011_templates': m0011,
  '0012_bulk_sends': m0012,
  '0013_envelope_list': m0013,
  '0014_users': m0014,
  '0015_created_by': m0015,
  '0016_data_mode': m0016,
  '0017_reminders_links': m0017,
  '0018_token_family': m0018,
  '0019_esign_transactions': m0019,
  '0020_layout_by_reference': m0020,
  '0021_idempotency_lease': m0021,
  '0022_mail_settings': m0022,
  '0023_verify_lookup': m0023,
  '0024_retention': m0024,
  '0025_partial_envelope_indexes': m0025,
};

const provider: MigrationProvider = { getMigrations: async () => ({ ...MIGRATIONS }) };

export interface MigrationReport {
  readonly applied: readonly string[];
}

/** Brings the schema to the latest version. Safe to run on every start, also by several instances. */
export async function migrateToLatest(db: Kysely<Database>): Promise<MigrationReport> {
  const migrator = new Migrator({ db: db as unknown as Kysely<unknown>, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}

export function migrator(db: Kysely<Database>): Migrator {
  return new Migrator({ db: db as unknown as Kysely<unknown>, provider });
}

/**
 * How the database's applied migrations differ from this build's list (readiness): `missing` are known
 * here and not applied; `unknown` are applied and not known here (a newer build migrated the database).
 * Reads Kysely's own bookkeeping table, so it costs one small select.
 */
export async function migrationDrift(
  db: Kysely<Database>,
): Promise<{ readonly missing: readonly string[]; readonly unknown: readonly string[] }> {
  const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
  const applied = new Set(rows.map((r) => r.name));
  const known = new Set(Object.keys(MIGRATIONS));
  return {
    missing: [...known].filter((name) => !applied.has(name)),
    unknown: [...applied].filter((name) => !known.has(name)),
  };
}
