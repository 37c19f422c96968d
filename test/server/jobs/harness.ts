/** Shared by the job and mail tests: a migrated database of either kind, a movable clock, polling. */
import { connectStorage, type Storage } from '../../../server/storage/connect.js';
import { migrateToLatest } from '../../../server/storage/migrations/index.js';
import { createTestDatabase, type DatabaseKind, type TestDatabase } from '../../support/databases.js';

export class MovableClock {
  private offsetMs = 0;
  readonly now = (): Date => new Date(Date.now() + this.offsetMs);
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

export interface JobsDatabase {
  readonly database: TestDatabase;
  readonly storage: Storage;
  close(): Promise<void>;
}

export async function openJobsDatabase(kind: DatabaseKind, poolSize?: number): Promise<JobsDatabase> {
  const database = await createTestDatabase(kind);
  const storage = connectStorage({
    databaseUrl: database.databaseUrl,
    dataDir: database.dataDir,
    ...(poolSize ? { poolSize } : {}),
  });
  await migrateToLatest(storage.db);
  return {
    database,
    storage,
    async close() {
      await storage.close();
      await database.drop();
    },
  };
}

export async function waitUntil(
  condition: () => Promise<boolean> | boolean,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A JobLogger that remembers instead of printing. */
export function quietLogger(): {
  warn(o: object, m: string): void;
  error(o: object, m: string): void;
  lines: string[];
} {
  const lines: string[] = [];
  return { lines, warn: (_o, m) => void lines.push(`warn ${m}`), error: (_o, m) => void lines.push(`error ${m}`) };
}
