/** Audit test support: a migrated test database, envelopes made by plain inserts, tampering by hand. */
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { connectStorage, type Storage } from '../../server/storage/connect.js';
import { migrateToLatest } from '../../server/storage/migrations/index.js';
import type { Database, EnvelopeStatus, RecipientStatus } from '../../server/storage/schema.js';
import { createTestDatabase, type DatabaseKind, type TestDatabase } from './databases.js';

export interface AuditTestDb {
  readonly kind: DatabaseKind;
  readonly database: TestDatabase;
  readonly storage: Storage;
  readonly db: Kysely<Database>;
  close(): Promise<void>;
}

export async function openAuditTestDb(kind: DatabaseKind, poolSize = 25): Promise<AuditTestDb> {
  const database = await createTestDatabase(kind);
  const storage = connectStorage({ databaseUrl: database.databaseUrl, dataDir: database.dataDir, poolSize });
  await migrateToLatest(storage.db);
  return {
    kind,
    database,
    storage,
    db: storage.db,
    async close() {
      await storage.close();
      await database.drop();
    },
  };
}

export interface TestEnvelope {
  readonly accountId: string;
  readonly envelopeId: string;
  readonly recipients: { id: string; name: string; email: string }[];
}

/** An account with one envelope and its recipients, written directly (no domain rules). */
export async function insertEnvelope(
  db: Kysely<Database>,
  options: {
    title?: string;
    status?: EnvelopeStatus;
    recipients?: { name: string; email: string; role?: string; method?: string; status?: RecipientStatus }[];
    accountName?: string;
  } = {},
): Promise<TestEnvelope> {
  const at = '2024-05-01T09:00:00.000Z';
  const accountId = randomUUID();
  const envelopeId = randomUUID();
  await db
    .insertInto('accounts')
    .values({
      id: accountId,
      name: options.accountName ?? 'Sharma & Co',
      test_mode: 0,
      suspended: 0,
      monthly_call_limit: null,
      settings: '{}',
      created_at: at,
    })
    .execute();
  await db
    .insertInto('envelopes')
    .values({
      id: envelopeId,
      account_id: accountId,
      title: options.title ?? 'Lease agreement',
      status: options.status ?? 'completed',
      external_id: null,
      routing_order: 'sequential',
      message: null,
      expire_in_days: null,
      redirect_url: null,
      metadata: null,
      created_at: at,
      updated_at: at,
    })
    .execute();
  const recipients = (options.recipients ?? []).map((r, i) => ({ id: randomUUID(), ...r, position: i + 1 }));
  for (const r of recipients) {
    await db
      .insertInto('recipients')
      .values({
        id: r.id,
        envelope_id: envelopeId,
        name: r.name,
        email: r.email,
        role: r.role ?? 'signer',
        signature_method: r.method ?? 'electronic',
        sequence: r.position,
        status: r.status ?? 'signed',
        position: r.position,
        created_at: at,
      })
      .execute();
  }
  return { accountId, envelopeId, recipients: recipients.map((r) => ({ id: r.id, name: r.name, email: r.email })) };
}

/** Runs `statements` with the append-only triggers out of the way, as someone with DDL rights could. */
export async function tamper(t: AuditTestDb, statements: (db: Kysely<Database>) => Promise<void>): Promise<void> {
  if (t.kind === 'postgres') {
    await t.db.connection().execute(async (conn) => {
      await sql`ALTER TABLE audit_events DISABLE TRIGGER USER`.execute(conn);
      try {
        await statements(conn);
      } finally {
        await sql`ALTER TABLE audit_events ENABLE TRIGGER USER`.execute(conn);
      }
    });
    return;
  }
  await sql`DROP TRIGGER audit_events_no_update`.execute(t.db);
  await sql`DROP TRIGGER audit_events_no_delete`.execute(t.db);
  try {
    await statements(t.db);
  } finally {
    await sql`CREATE TRIGGER audit_events_no_update BEFORE UPDATE ON audit_events BEGIN SELECT RAISE(ABORT, 'audit_events is append-only'); END`.execute(
      t.db,
    );
    await sql`CREATE TRIGGER audit_events_no_delete BEFORE DELETE ON audit_events BEGIN SELECT RAISE(ABORT, 'audit_events is append-only'); END`.execute(
      t.db,
    );
  }
}

/** Swaps the seq numbers of two rows (the rows keep their columns and hashes). */
export async function swapSeq(db: Kysely<Database>, envelopeId: string, a: number, b: number): Promise<void> {
  await db
    .updateTable('audit_events')
    .set({ seq: -1 })
    .where('envelope_id', '=', envelopeId)
    .where('seq', '=', a)
    .execute();
  await db
    .updateTable('audit_events')
    .set({ seq: a })
    .where('envelope_id', '=', envelopeId)
    .where('seq', '=', b)
    .execute();
  await db
    .updateTable('audit_events')
    .set({ seq: b })
    .where('envelope_id', '=', envelopeId)
    .where('seq', '=', -1)
    .execute();
}
