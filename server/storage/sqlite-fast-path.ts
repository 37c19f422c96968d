/**
 * The SQLite fast path for the hottest API calls (envelope creation, status polls). See docs/decisions.md.
 *
 * Kysely stays the storage layer: the statements run here are SQL that Kysely compiled from the typed
 * schema. This file only skips Kysely's per-call work (building and compiling the query, the promise hops
 * of its connection mutex) by running a prepared statement directly on the one better-sqlite3 connection,
 * and it lets several writes share one commit (group commit):
 *
 * - `write(work)`: `work` runs synchronously in a transaction shared with the other writes queued in the
 *   same turn of the event loop or the next. Its promise settles only after that transaction committed, so nothing
 *   is acknowledged before it is as durable as any other commit (WAL, synchronous=FULL). A write that
 *   throws is rejected and leaves nothing behind, and the others still commit: the batch first runs
 *   without savepoints (they cost about a third of a create's database work); when a write fails, the
 *   round is rolled back and the remaining writes run again, each in its own savepoint from then on. The
 *   batch runs from BEGIN to COMMIT in one synchronous stretch while holding Kysely's connection, so it
 *   never mixes with a Kysely transaction and nobody sees it half done.
 * - `readArraysNow(query)`: runs a read at once when no transaction is open on the connection. While a Kysely
 *   transaction is open (its uncommitted rows are visible on this same connection) it returns undefined
 *   and the caller takes the ordinary Kysely path, which waits for that transaction to end.
 *
 * Only for SQLite: PostgreSQL has real connections and a pool, and keeps the ordinary Kysely path.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { CompiledQuery, Insertable, Kysely } from 'kysely';
import type { Database } from './schema.js';

/** Writes in one transaction at most; more wait for the next commit. Bounds a batch's latency. */
const MAX_BATCH = 64;

/** Stands in a runTemplate value's place when its statement is compiled. */
const MARKER = '\u0000mohar-template:';

interface QueuedWrite {
  readonly work: () => unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
  result?: unknown;
}

type Value = string | number | bigint | null | Buffer;

export class SqliteFastPath {
  private readonly statements = new Map<string, BetterSqlite3.Statement>();
  private readonly arrayStatements = new Map<string, BetterSqlite3.Statement>();
  /** Insert SQL by table and column list, compiled by Kysely. */
  private readonly inserts = new Map<string, { columns: readonly string[]; sql: string }[]>();
  /** runTemplate's statements: SQL and, per parameter, the value's name or a constant. */
  private readonly templates = new Map<string, { sql: string; slots: ({ key: string } | { constant: Value })[] }>();
  private queue: QueuedWrite[] = [];
  private flushScheduled = false;
  /** Commits made, writes they carried, and rounds run again after a failed write (for tests and measurements). */
  readonly stats = { commits: 0, writes: 0, restarts: 0 };

  constructor(
    private readonly file: BetterSqlite3.Database,
    private readonly db: Kysely<Database>,
  ) {}

  private statement(sql: string): BetterSqlite3.Statement {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.file.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /**
   * Inserts one row, as Kysely's `insertInto(table).values(row)` would (same SQL, same parameters:
   * columns in the row's key order, undefined members left out). Values must be plain: no expressions.
   * Only inside `write()`.
   */
  insert<T extends keyof Database & string>(table: T, row: Insertable<Database[T]>): void {
    const record = row as Record<string, Value | undefined>;
    const columns: string[] = [];
    const values: Value[] = [];
    for (const column of Object.keys(record)) {
      const value = record[column];
      if (value === undefined) continue;
      columns.push(column);
      values.push(value);
    }
    // Callers insert rows of one shape per table, so this list holds one entry or two.
    let shapes = this.inserts.get(table);
    if (shapes === undefined) {
      shapes = [];
      this.inserts.set(table, shapes);
    }
    let shape = shapes.find((s) => s.columns.length === columns.length && s.columns.every((c, i) => c === columns[i]));
    if (shape === undefined) {
      const placeholders = Object.fromEntries(columns.map((column) => [column, null]));
      shape = {
        columns,
        sql: this.db
          .insertInto(table)
          .values(placeholders as Insertable<Database[T]>)
          .compile().sql,
      };
      shapes.push(shape);
    }
    this.statement(shape.sql).run(values);
  }

  /**
   * Runs any statement Kysely compiled (`query.compile()`, with its parameters); returns the rows changed. Only inside
   * `write()`.
   */
  run(query: CompiledQuery): number {
    return this.statement(query.sql).run(query.parameters as Value[]).changes;
  }

  /**
   * Runs `build(values)` compiled by Kysely only once per `name` (compiling an INSERT … SELECT costs about
   * 20 µs, as much as the write): `build` must turn each member of `values` into one parameter and may add
   * constant parameters of its own. The first call compiles it with a marker in every value's place and
   * records which parameter is which. Returns the rows changed. Only inside `write()`.
   */
  runTemplate<V extends { readonly [K in keyof V]: Value }>(
    name: string,
    build: (values: V) => { compile(): CompiledQuery },
    values: V,
  ): number {
    let template = this.templates.get(name);
    if (template === undefined) {
      const markers = Object.fromEntries(Object.keys(values).map((key) => [key, `${MARKER}${key}`])) as unknown as V;
      const compiled = build(markers).compile();
      const slots = compiled.parameters.map((p) =>
        typeof p === 'string' && p.startsWith(MARKER) ? { key: p.slice(MARKER.length) } : { constant: p as Value },
      );
      template = { sql: compiled.sql, slots };
      this.templates.set(name, template);
    }
    const parameters = template.slots.map((slot) =>
      'key' in slot ? (values as Record<string, Value>)[slot.key]! : slot.constant,
    );
    return this.statement(template.sql).run(parameters).changes;
  }

  /**
   * Runs a compiled read now, or returns undefined while a transaction is open (use Kysely then). Each
   * row is an array of its columns in select order: building an object per row (each property set from
   * C++, its name interned again) is most of what a small read costs in better-sqlite3.
   */
  readArraysNow(query: CompiledQuery): unknown[][] | undefined {
    if (this.file.inTransaction) return undefined;
    let statement = this.arrayStatements.get(query.sql);
    if (statement === undefined) {
      statement = this.file.prepare(query.sql).raw(true);
      this.arrayStatements.set(query.sql, statement);
    }
    return statement.all(query.parameters as Value[]) as unknown[][];
  }

  /**
   * Runs `work` in the next group commit and settles after the commit. `work` is synchronous and writes
   * only through `insert` and `run`; it may run more than once (when another write of its batch fails), so
   * it must not change anything else.
   */
  write<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.flushScheduled) this.scheduleFlush();
    });
  }

  private async flush(): Promise<void> {
    try {
      await this.db.connection().execute(async () => {
        // Taken only now: writes queued while waiting for the connection join too.
        const batch = this.queue.splice(0, MAX_BATCH);
        this.flushScheduled = false;
        this.commitBatch(batch);
      });
    } catch (error) {
      // The connection could not be had (storage closed): nothing was written.
      this.flushScheduled = false;
      for (const write of this.queue.splice(0)) write.reject(error);
    }
    if (this.queue.length > 0 && !this.flushScheduled) this.scheduleFlush();
  }

  /**
   * The batch is flushed at the check phase of the loop's next turn, not this one. Requests whose bodies arrived
   * in this turn run their handlers before the check phase, so they join; so do those that arrived while these
   * handlers ran (the clients answered by the last commit, asking again), which the next turn's poll phase reads.
   * Flushing one turn earlier left those for a commit of their own: 6.3 writes per commit against 9.7 with ten
   * clients, each commit paying its fsync and its index pages again (docs/performance-signing.md). The wait is one
   * turn of a loop with work pending, whose poll does not block: microseconds when no request is coming.
   */
  private scheduleFlush(): void {
    this.flushScheduled = true;
    setImmediate(() => setImmediate(() => void this.flush()));
  }

  /**
   * BEGIN, the writes, COMMIT, then settle: all synchronous. Every write of the batch is settled exactly
   * once: resolved after the commit, or rejected. The first round runs without savepoints; after a failure
   * each later round gives every write its own, so one failure costs at most one extra round.
   */
  private commitBatch(batch: QueuedWrite[]): void {
    let pending = batch;
    let savepoints = false;
    while (pending.length > 0) {
      if (this.file.inTransaction) {
        // Kysely's connection is ours, so only a bug elsewhere leaves a transaction open here.
        failAll(pending, new Error('a transaction was left open on the SQLite connection'));
        return;
      }
      try {
        this.statement('BEGIN IMMEDIATE').run();
      } catch (error) {
        failAll(pending, error); // another process holds the write lock beyond busy_timeout
        return;
      }
      const done: QueuedWrite[] = [];
      let next = 0;
      try {
        for (; next < pending.length; next++) {
          const write = pending[next]!;
          if (savepoints) this.statement('SAVEPOINT fast_write').run();
          try {
            write.result = write.work();
            if (write.result instanceof Promise) {
              throw new Error('fast path work must be synchronous (it runs inside one transaction)');
            }
          } catch (error) {
            if (!savepoints || !this.file.inTransaction) throw error;
            this.statement('ROLLBACK TO fast_write').run();
            this.statement('RELEASE fast_write').run();
            write.reject(error);
            continue;
          }
          if (savepoints) this.statement('RELEASE fast_write').run();
          done.push(write);
        }
        this.statement('COMMIT').run();
      } catch (error) {
        this.rollbackQuietly();
        if (next < pending.length) {
          // A write failed without a savepoint to go back to, or so that SQLite ended the transaction (disk
          // full, I/O error): the round is undone. None was acknowledged, so reject only that write and run
          // the others again, with savepoints. Each round drops one write, so this ends.
          pending[next]!.reject(error);
          pending = [...done, ...pending.slice(next + 1)];
          savepoints = true;
          this.stats.restarts++;
          continue;
        }
        failAll(done, error); // COMMIT failed: nothing of this batch was written
        return;
      }
      this.stats.commits++;
      this.stats.writes += done.length;
      for (const write of done) write.resolve(write.result);
      return;
    }
  }

  private rollbackQuietly(): void {
    if (!this.file.inTransaction) return;
    try {
      this.statement('ROLLBACK').run();
    } catch {
      // The error that brought us here is what the writers hear about.
    }
  }
}

function failAll(writes: readonly QueuedWrite[], error: unknown): void {
  for (const write of writes) write.reject(error);
}
