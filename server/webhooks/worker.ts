/**
 * The delivery worker: claims due deliveries with a lease (claim.ts), POSTs them (transport.ts), and records
 * each attempt (record.ts). 2xx: succeeded. 410 Gone: the endpoint is disabled with the reason, its queued
 * deliveries paused. Anything else, or no answer: retried on the schedule (schedule.ts) until the last
 * attempt, then dead.
 *
 * Outcomes are written in batches (one transaction for all attempts that finished meanwhile), which keeps
 * the database cost per delivery small. A worker that dies mid-attempt leaves the lease; once it expires
 * any worker logs the attempt as interrupted and retries it: delivery is at least once.
 *
 * The worker wakes at once when deliveries are queued (signal.ts: NOTIFY on PostgreSQL, in-process on
 * SQLite), and polls every second anyway (retries coming due, missed signals).
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Config } from '../config.js';
import { LeaseLoop } from '../jobs/lease-loop.js';
import type { SecretBox } from '../seal/secret-box.js';
import type { DialectName } from '../storage/connect.js';
import type { Database } from '../storage/schema.js';
import { Claimer, type DeliveryRow } from './claim.js';
import { reapExpiredLeases, recordOutcomes, type Outcome } from './record.js';
import { signingSecrets, webhookSecretBox } from './secrets.js';
import { onDeliveriesQueued, WEBHOOK_CHANNEL } from './signal.js';
import { webhookTransport, type WebhookResponse, type WebhookTransport } from './transport.js';
import { EVENT_ID_HEADER, signatureHeader, SIGNATURE_HEADER, TIMESTAMP_HEADER } from './verify.js';

const REAP_EVERY_MS = 5_000;
const LISTEN_RETRY_MS = 5_000;

/** pino-compatible (app.log fits). */
export interface WorkerLogger {
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

/** What the worker needs of the server; the domain's Context has all of it (webhooks/ does not import domain/). */
export interface WorkerContext {
  readonly db: Kysely<Database>;
  readonly dialect: DialectName;
  readonly config: Config;
  readonly now: () => Date;
}

export interface WebhookWorkerOptions {
  /** Default: a keep-alive transport honouring MOHAR_WEBHOOK_ALLOW_PRIVATE. */
  readonly transport?: WebhookTransport;
  /** Deliveries in flight at once; default 64. */
  readonly concurrency?: number;
  /** Look for due deliveries this often when nothing wakes the worker; default 1000 ms. */
  readonly pollIntervalMs?: number;
  /** A claimed delivery belongs to this worker this long (well above the 10 s timeout); default 30 s. */
  readonly leaseMs?: number;
  /** Jitter source of the retry schedule (tests fix it). */
  readonly random?: () => number;
  readonly logger?: WorkerLogger;
  readonly owner?: string;
  /** PostgreSQL: LISTEN for new deliveries (default true). */
  readonly listen?: boolean;
  /**
   * PostgreSQL: while started, use a small connection pool of its own (this many connections; 0 = share
   * ctx.db), so deliveries never queue behind API requests for a connection. Default 0; the server uses 4.
   */
  readonly ownPool?: number;
  /** Told of every attempt's answer as it comes in (the server's metrics count them). */
  readonly onAttempt?: (response: WebhookResponse) => void;
}

interface Claimed {
  readonly row: DeliveryRow;
  readonly url: string;
  readonly payload: string | undefined;
  readonly secrets: string[] | Error;
}

const consoleLogger: WorkerLogger = {
  warn: () => undefined,
  error: (object, message) => console.error(message, object),
};

export class WebhookWorker {
  readonly owner: string;
  private db: Kysely<Database>;
  private ownDb: Kysely<Database> | undefined;
  private readonly transport: WebhookTransport;
  private readonly ownsTransport: boolean;
  private readonly concurrency: number;
  private readonly pollIntervalMs: number;
  private readonly leaseMs: number;
  private readonly random: () => number;
  private readonly logger: WorkerLogger;
  private readonly listenEnabled: boolean;
  private claimer: Claimer;
  private readonly ownPool: number;
  private readonly onAttempt: ((response: WebhookResponse) => void) | undefined;

  private readonly loop: LeaseLoop;
  private lastReap = -Infinity;
  /** Claimed and not yet recorded. */
  private inFlight = 0;
  /** stop() gave up waiting: answers that still come in are not recorded (their leases were released). */
  private abandoned = false;
  private readonly running = new Set<Promise<void>>();
  private outcomes: { outcome: Outcome; done: () => void }[] = [];
  private flushing: Promise<void> | undefined;
  private unsubscribe: (() => void) | undefined;
  private listener: pg.Client | undefined;
  private listenTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ctx: WorkerContext,
    options: WebhookWorkerOptions = {},
  ) {
    this.db = ctx.db;
    this.ownsTransport = options.transport === undefined;
    this.transport = options.transport ?? webhookTransport({ allowPrivate: ctx.config.webhookAllowPrivate });
    this.concurrency = Math.max(1, Math.trunc(options.concurrency ?? 64));
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.leaseMs = options.leaseMs ?? 30_000;
    this.random = options.random ?? Math.random;
    this.logger = options.logger ?? consoleLogger;
    this.owner = options.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.listenEnabled = options.listen ?? true;
    this.claimer = new Claimer(ctx.db, ctx.dialect);
    this.ownPool = options.ownPool ?? 0;
    this.onAttempt = options.onAttempt;
    this.loop = new LeaseLoop({
      pollIntervalMs: this.pollIntervalMs,
      round: () => this.claimRound(),
      hasRoom: () => this.inFlight < this.concurrency,
    });
  }

  start(): void {
    // The first round runs on a timer, after the setup below.
    if (!this.loop.start()) return;
    this.abandoned = false;
    if (this.ctx.dialect === 'postgres' && this.ownPool > 0 && this.ctx.config.databaseUrl) {
      const pool = new pg.Pool({ connectionString: this.ctx.config.databaseUrl, max: this.ownPool });
      pool.on('error', () => undefined); // an idle connection that drops must not crash the process
      this.ownDb = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
      this.db = this.ownDb;
      this.claimer = new Claimer(this.db, this.ctx.dialect);
    }
    this.unsubscribe = onDeliveriesQueued(() => this.poke());
    if (this.ctx.dialect === 'postgres' && this.listenEnabled && this.ctx.config.databaseUrl) void this.listen();
  }

  /** Looks for due deliveries now; harmless when idle or stopped. */
  poke(): void {
    this.loop.poke();
  }

  /** Deliveries claimed and not recorded yet. */
  get active(): number {
    return this.inFlight;
  }

  /**
   * Stops claiming, waits for attempts in flight (up to timeoutMs; the leases of those still running are
   * released, so they are retried at once) and records their outcomes.
   */
  async stop(options: { timeoutMs?: number } = {}): Promise<void> {
    if (!this.loop.beginStop()) return;
    this.unsubscribe?.();
    clearTimeout(this.listenTimer);
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
    await this.loop.roundEnded();
    let timeout: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.running]),
      new Promise<void>((resolve) => {
        timeout = setTimeout(resolve, options.timeoutMs ?? 15_000);
      }),
    ]);
    clearTimeout(timeout);
    // Attempts still running past the timeout are given up: closing the transport below fails them, and that
    // failure must not be recorded as the receiver's (it would wait for the retry schedule). Their leases end
    // instead, so the next worker's reaper (here or in another instance) records them as interrupted and
    // retries them at once.
    const givenUp = this.inFlight > 0;
    this.abandoned = givenUp;
    await this.flushing;
    if (this.ownsTransport) this.transport.close();
    if (givenUp) await this.releaseLeases();
    if (this.ownDb) {
      // Attempts still running past the timeout were released above; their outcome is not written (retried later).
      const own = this.ownDb;
      this.ownDb = undefined;
      this.db = this.ctx.db;
      this.claimer = new Claimer(this.db, this.ctx.dialect);
      await own.destroy();
    }
    this.loop.finishStop();
  }

  private async releaseLeases(): Promise<void> {
    try {
      await this.db
        .updateTable('webhook_deliveries')
        .set({ lease_expires_at: this.ctx.now().toISOString() })
        .where('status', '=', 'delivering')
        .where('lease_owner', '=', this.owner)
        .execute();
      this.logger.warn({ owner: this.owner }, 'webhook worker stopped with attempts in flight; they are retried');
    } catch (error) {
      this.logger.error({ err: error }, 'webhook worker: releasing leases failed; they expire on their own');
    }
  }

  /**
   * Delivers everything due now, batch after batch, until nothing is due; returns how many attempts were
   * made. For tests and one-shot use: not to be mixed with start().
   */
  async deliverDue(): Promise<number> {
    let total = 0;
    for (;;) {
      await this.reapExpiredLeases();
      const claimed = await this.claim(this.concurrency);
      if (claimed.length === 0) return total;
      total += claimed.length;
      const outcomes = await Promise.all(claimed.map((c) => this.attempt(c)));
      await this.record(outcomes);
    }
  }

  /**
   * One round of the lease loop: claims deliveries for the free slots and launches them; true when it filled them all.
   */
  private async claimRound(): Promise<boolean> {
    try {
      if (performance.now() - this.lastReap >= REAP_EVERY_MS) {
        this.lastReap = performance.now();
        await this.reapExpiredLeases();
      }
      const free = this.concurrency - this.inFlight;
      if (free <= 0) return false;
      const claimed = await this.claim(free);
      for (const c of claimed) this.launch(c);
      return claimed.length === free;
    } catch (error) {
      this.logger.error({ err: error }, 'webhook worker: claiming deliveries failed; trying again at the next poll');
      return false;
    }
  }

  private launch(claimed: Claimed): void {
    this.inFlight++;
    const run = this.attempt(claimed)
      .then((outcome) =>
        this.abandoned
          ? undefined
          : new Promise<void>((done) => {
              this.outcomes.push({ outcome, done });
              // After the other answers of this turn of the event loop: they share one transaction.
              this.flushing ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.flush());
            }),
      )
      .finally(() => {
        this.inFlight--;
        this.running.delete(run);
        this.poke();
      });
    this.running.add(run);
  }

  /** Writes every outcome that has come in, in one transaction per batch, until none is left. */
  private async flush(): Promise<void> {
    try {
      while (this.outcomes.length > 0) {
        const batch = this.outcomes;
        this.outcomes = [];
        try {
          await this.record(batch.map((b) => b.outcome));
        } catch (error) {
          // Not recorded: the leases expire and the deliveries are retried (at least once).
          this.logger.error(
            { err: error, deliveries: batch.length },
            'webhook worker: recording delivery outcomes failed',
          );
        }
        for (const b of batch) b.done();
      }
    } finally {
      this.flushing = undefined;
    }
  }

  /** Claims up to `limit` due deliveries (claim.ts) and prepares them. */
  private async claim(limit: number): Promise<Claimed[]> {
    const now = this.ctx.now();
    const rows = await this.claimer.claim({ limit, owner: this.owner, now, leaseMs: this.leaseMs });
    return rows.length === 0 ? [] : this.prepare(rows, now);
  }

  /** Payloads, current URLs and signing secrets of the claimed deliveries (one query). */
  private async prepare(rows: DeliveryRow[], now: Date): Promise<Claimed[]> {
    const details = await this.db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('events as ev', 'ev.id', 'd.event_id')
      .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
      .select([
        'd.id',
        'ev.payload',
        'e.id as endpoint_id',
        'e.url',
        'e.secret',
        'e.previous_secret',
        'e.previous_secret_expires_at',
      ])
      .where(
        'd.id',
        'in',
        rows.map((r) => r.id),
      )
      .execute();
    const byDelivery = new Map(details.map((d) => [d.id, d]));
    let box: SecretBox | Error;
    try {
      box = await webhookSecretBox(this.ctx.config);
    } catch (error) {
      box = error as Error;
    }
    const secretsOf = new Map<string, string[] | Error>();
    const secrets = (endpoint: {
      endpoint_id: string;
      secret: string;
      previous_secret: string | null;
      previous_secret_expires_at: string | null;
    }): string[] | Error => {
      let found = secretsOf.get(endpoint.endpoint_id);
      if (found === undefined) {
        try {
          if (box instanceof Error) throw box;
          found = signingSecrets(box, { ...endpoint, id: endpoint.endpoint_id }, now);
        } catch (error) {
          found = error as Error;
          this.logger.error(
            { err: error, endpoint: endpoint.endpoint_id },
            'webhook worker: the endpoint secret cannot be read; its deliveries fail until the secret key is fixed',
          );
        }
        secretsOf.set(endpoint.endpoint_id, found);
      }
      return found;
    };
    return rows.map((row) => {
      const detail = byDelivery.get(row.id);
      if (!detail) return { row, url: '', payload: undefined, secrets: new Error('the event or endpoint is gone') };
      return { row, url: detail.url, payload: detail.payload, secrets: secrets(detail) };
    });
  }

  /** One HTTP attempt; never throws. */
  private async attempt(claimed: Claimed): Promise<Outcome> {
    const outcome = await this.post(claimed);
    this.onAttempt?.(outcome.response);
    return outcome;
  }

  private async post(claimed: Claimed): Promise<Outcome> {
    const startedAt = this.ctx.now();
    const fail = (error: string): Outcome => ({
      row: claimed.row,
      url: claimed.url,
      startedAt: startedAt.toISOString(),
      finishedAt: this.ctx.now(),
      response: { statusCode: null, error, excerpt: '', location: undefined, durationMs: 0 },
    });
    if (claimed.payload === undefined) return fail('the event is missing from the outbox');
    if (claimed.secrets instanceof Error) return fail(`cannot sign: ${claimed.secrets.message}`);
    const body = Buffer.from(claimed.payload, 'utf8');
    const timestamp = Math.floor(startedAt.getTime() / 1000);
    const response = await this.transport.post({
      url: claimed.url,
      body,
      headers: {
        'content-type': 'application/json',
        [TIMESTAMP_HEADER]: String(timestamp),
        [SIGNATURE_HEADER]: signatureHeader(claimed.secrets, timestamp, body),
        [EVENT_ID_HEADER]: claimed.row.event_id,
        'x-service-event-type': claimed.row.event_type,
        'x-service-delivery-attempt': String(claimed.row.attempts),
      },
    });
    return {
      row: claimed.row,
      url: claimed.url,
      startedAt: startedAt.toISOString(),
      finishedAt: this.ctx.now(),
      response,
    };
  }

  /** Writes the attempts and the deliveries' next state (record.ts), and says what became of them. */
  private async record(outcomes: readonly Outcome[]): Promise<void> {
    const { dead, disabled } = await recordOutcomes(this.db, outcomes, {
      owner: this.owner,
      random: this.random,
      now: this.ctx.now(),
    });
    for (const endpoint of disabled) {
      this.logger.warn({ endpoint }, 'webhook endpoint disabled: the receiver answered 410 Gone');
    }
    if (dead.length > 0) {
      this.logger.warn(
        { deliveries: dead },
        'webhook deliveries are dead after their last attempt (listed at GET /webhook/deliveries/?status=dead)',
      );
    }
  }

  private async reapExpiredLeases(): Promise<void> {
    const reclaimed = await reapExpiredLeases(this.db, this.ctx.now());
    if (reclaimed > 0) {
      this.logger.warn(
        { deliveries: reclaimed },
        'webhook worker: retrying deliveries whose worker stopped mid-attempt',
      );
    }
  }

  /** PostgreSQL: a connection that LISTENs, so a commit anywhere wakes this worker at once. */
  private async listen(): Promise<void> {
    if (!this.loop.claiming) return;
    const client = new pg.Client({ connectionString: this.ctx.config.databaseUrl });
    const retry = (): void => {
      if (this.listener === client) this.listener = undefined;
      client.end().catch(() => undefined);
      if (!this.loop.claiming) return;
      clearTimeout(this.listenTimer);
      this.listenTimer = setTimeout(() => void this.listen(), LISTEN_RETRY_MS);
    };
    client.on('error', retry);
    client.on('notification', () => this.poke());
    try {
      await client.connect();
      await client.query(`LISTEN ${WEBHOOK_CHANNEL}`);
      if (!this.loop.claiming) {
        await client.end();
        return;
      }
      this.listener = client;
      this.poke(); // whatever was queued while not listening
    } catch (error) {
      this.logger.warn({ err: error }, 'webhook worker: LISTEN failed; polling until it works again');
      retry();
    }
  }
}

/** Used by start.ts: the worker as the server runs it (on PostgreSQL with 4 connections of its own, plus LISTEN). */
export function webhookWorkerFor(ctx: WorkerContext, options: WebhookWorkerOptions = {}): WebhookWorker {
  return new WebhookWorker(ctx, { ownPool: 4, ...options });
}
