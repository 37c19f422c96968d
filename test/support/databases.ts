/**
 * Every storage and API suite runs on SQLite and on PostgreSQL. Each test server gets a database
 * of its own: a temporary data dir for SQLite, a fresh database on the local PostgreSQL
 * (127.0.0.1:5432, trust auth; override with MOHAR_TEST_PG_URL).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export const DATABASES = ['sqlite', 'postgres'] as const;
export type DatabaseKind = (typeof DATABASES)[number];

const ADMIN_URL = process.env.MOHAR_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  readonly kind: DatabaseKind;
  readonly dataDir: string;
  readonly databaseUrl: string | undefined;
  drop(): Promise<void>;
}

async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export async function createTestDatabase(kind: DatabaseKind): Promise<TestDatabase> {
  const dataDir = await mkdtemp(join(tmpdir(), 'mohar-test-'));
  if (kind === 'sqlite') {
    return { kind, dataDir, databaseUrl: undefined, drop: () => rm(dataDir, { recursive: true, force: true }) };
  }
  const name = `mohar_test_${randomBytes(6).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    kind,
    dataDir,
    databaseUrl: url.toString(),
    async drop() {
      await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
