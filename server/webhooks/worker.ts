/**
 * The delivery worker: claims due deliveries with a lease, POSTs them (transport.ts), and records each
 * attempt. 2xx: succeeded. 410 Gone: the endpoint is disabled with the reason, its queued deliveries paused.
 * Anything else, or no answer: retried on the schedule (schedule.ts) until the last attempt, then dead.
 *
 * Claiming is one statement per batch, as in server/jobs: on PostgreSQL `UPDATE … WHERE id IN (SELECT …
 * FOR UPDATE SKIP LOCKED LIMIT n)`, so several server instances never take the same delivery; on SQLite
 * (one process) the due ids are read, then updated only while still pending. A claim skips a delivery while
 * an earlier event of the same envelope to the same endpoint is in flight or not tried yet, so a receiver
 * gets an envelope's events in order as long as nothing fails (after a failure, later events go ahead:
 * order by `sequence`).
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
import type { Kysely, Selectable } from 'kysely';
import pg from 'pg';
import type { Context } from '../domain/context.js';
import type { SecretBox } from '../seal/secret-box.js';
import type { Database, WebhookDeliveriesTable } from '../storage/schema.js';
import { retryDelayMs } from './schedule.js';
import { signingSecrets, webhookSecretBox } from './secrets.js';
import { onDeliveriesQueued, WEBHOOK_CHANNEL } from './signal.js';
import { webhookTransport, type WebhookResponse, type WebhookTransport } from './transport.js';
import { EVENT_ID_HEADER, signatureHeader, SIGNATURE_HEADER, TIMESTAMP_HEADER } from './verify.js';

/** Error text kept per attempt. */
export const MAX_ERROR_CHARS = 1000;
const REAP_EVERY_MS = 5_000;
const LISTEN_RETRY_MS = 5_000;
const INTERRUPTED = 'the attempt was interrupted (the server stopped or crashed before the answer was recorded)';

/** pino-compatible (app.log fits). */
export interface WorkerLogger {
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
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
}

type DeliveryRow = Selectable<WebhookDeliveriesTable>;

interface Claimed {
  readonly row: DeliveryRow;
  readonly url: string;
  readonly payload: string | undefined;
  readonly secrets: string[] | Error;
}

interface Outcome {
  readonly claimed: Claimed;
  readonly startedAt: string;
  readonly finishedAt: Date;
  readonly response: WebhookResponse;
}

const consoleLogger: WorkerLogger = { warn: () => undefined, error: (object, message) => console.error(message, object) };

function truncate(text: string): string {
  return text.length <= MAX_ERROR_CHARS ? text : `${text.slice(0, MAX_ERROR_CHARS - 1)}…`;
}

/** The log line of an attempt that did not succeed. */
function describeFailure(response: WebhookResponse): string {
  if (response.statusCode === null) return truncate(response.error ?? 'no answer');
  const redirect = response.statusCode >= 300 && response.statusCode < 400 ? ` (redirect${response.location ? ` to ${response.location}` : ''}: redirects are not followed)` : '';
  const body = response.excerpt.trim().replace(/\s+/g, ' ');
  return truncate(`HTTP ${response.statusCode}${redirect}${body ? `: ${body}` : ''}`);
}

export class WebhookWorker {
  readonly owner: string;
  private readonly db: Kysely<Database>;
  private readonly transport: WebhookTransport;
  private readonly ownsTransport: boolean;
  private readonly concurrency: number;
  private readonly pollIntervalMs: number;
  private readonly leaseMs: number;
  private readonly random: () => number;
  private readonly logger: WorkerLogger;
  private readonly listenEnabled: boolean;

  private started = false;
  private stopping = false;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private pokedWhileTicking = false;
  private lastReap = -Infinity;
  /** Claimed and not yet recorded. */
  private inFlight = 0;
  private readonly running = new Set<Promise<void>>();
  private outcomes: { outcome: Outcome; done: () => void }[] = [];
  private flushing: Promise<void> | undefined;
  private unsubscribe: (() => void) | undefined;
  private listener: pg.Client | undefined;
  private listenTimer: NodeJS.Timeout | undefined;

  constructor(private readonly ctx: Pick<Context, 'db' | 'dialect' | 'config' | 'now'>, options: WebhookWorkerOptions = {}) {
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
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.unsubscribe = onDeliveriesQueued(() => this.poke());
    if (this.ctx.dialect === 'postgres' && this.listenEnabled && this.ctx.config.databaseUrl) void this.listen();
    this.schedule(0);
  }

  /** Looks for due deliveries now; harmless when idle or stopped. */
  poke(): void {
    if (!this.started || this.stopping) return;
    if (this.ticking) {
      this.pokedWhileTicking = true;
      return;
    }
    this.schedule(0);
  }

  /** Deliveries claimed and not recorded yet. */
  get active(): number {
    return this.inFlight;
  }

  /**
   * Stops claiming, waits for attempts in flight (up to timeoutMs; those still running keep their lease
   * and are retried after it expires) and records their outcomes.
   */
  async stop(options: { timeoutMs?: number } = {}): Promise<void> {
    if (!this.started || this.stopping) return;
    this.stopping = true;
    clearTimeout(this.timer);
    this.unsubscribe?.();
    clearTimeout(this.listenTimer);
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
    await this.ticking;
    let timeout: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.running]),
      new Promise<void>((resolve) => {
        timeout = setTimeout(resolve, options.timeoutMs ?? 15_000);
      }),
    ]);
    clearTimeout(timeout);
    await this.flushing;
    if (this.ownsTransport) this.transport.close();
    this.started = false;
    this.stopping = false;
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

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), ms);
  }

  private async tick(): Promise<void> {
    this.timer = undefined;
    if (!this.started || this.stopping) return;
    let full = false;
    this.ticking = (async () => {
      try {
        if (performance.now() - this.lastReap >= REAP_EVERY_MS) {
          this.lastReap = performance.now();
          await this.reapExpiredLeases();
        }
        const free = this.concurrency - this.inFlight;
        if (free <= 0) return;
        const claimed = await this.claim(free);
        for (const c of claimed) this.launch(c);
        full = claimed.length === free;
      } catch (error) {
        this.logger.error({ err: error }, 'webhook worker: claiming deliveries failed; trying again at the next poll');
      }
    })();
    await this.ticking;
    this.ticking = undefined;
    if (!this.started || this.stopping) return;
    const again = this.pokedWhileTicking || (full && this.inFlight < this.concurrency);
    this.pokedWhileTicking = false;
    this.schedule(again ? 0 : this.pollIntervalMs);
  }

  private launch(claimed: Claimed): void {
    this.inFlight++;
    const run = this.attempt(claimed)
      .then((outcome) => new Promise<void>((done) => {
        this.outcomes.push({ outcome, done });
        this.flushing ??= this.flush();
      }))
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
          this.logger.error({ err: error, deliveries: batch.length }, 'webhook worker: recording delivery outcomes failed');
        }
        for (const b of batch) b.done();
      }
    } finally {
      this.flushing = undefined;
    }
  }

  /** Claims up to `limit` due deliveries of active endpoints, each the next of its envelope to that endpoint. */
  private async claim(limit: number): Promise<Claimed[]> {
    const now = this.ctx.now();
    const at = now.toISOString();
    const claimedColumns = { status: 'delivering' as const, lease_owner: this.owner, lease_expires_at: new Date(now.getTime() + this.leaseMs).toISOString(), updated_at: at };
    const due = this.db
      .selectFrom('webhook_deliveries as d')
      .select('d.id')
      .where('d.status', '=', 'pending')
      .where('d.next_attempt_at', '<=', at)
      .where(({ exists, selectFrom }) => exists(selectFrom('webhook_endpoints as e').select('e.id').whereRef('e.id', '=', 'd.endpoint_id').where('e.status', '=', 'active')))
      .where(({ exists, not, selectFrom }) =>
        not(exists(
          selectFrom('webhook_deliveries as p')
            .select('p.id')
            .whereRef('p.endpoint_id', '=', 'd.endpoint_id')
            .whereRef('p.envelope_id', '=', 'd.envelope_id')
            .whereRef('p.sequence', '<', 'd.sequence')
            .where((eb) => eb.or([eb('p.status', '=', 'delivering'), eb.and([eb('p.status', '=', 'pending'), eb('p.attempts', '=', 0)])])),
        )))
      .orderBy('d.next_attempt_at')
      .orderBy('d.sequence')
      .limit(limit);
    let rows: DeliveryRow[];
    if (this.ctx.dialect === 'postgres') {
      rows = await this.db
        .updateTable('webhook_deliveries')
        .set((eb) => ({ ...claimedColumns, attempts: eb('attempts', '+', 1) }))
        .where('id', 'in', due.forUpdate().skipLocked())
        .returningAll()
        .execute();
    } else {
      const ids = (await due.execute()).map((r) => r.id);
      if (ids.length === 0) return [];
      rows = await this.db
        .updateTable('webhook_deliveries')
        .set((eb) => ({ ...claimedColumns, attempts: eb('attempts', '+', 1) }))
        .where('id', 'in', ids)
        .where('status', '=', 'pending')
        .returningAll()
        .execute();
    }
    if (rows.length === 0) return [];
    return this.prepare(rows, now);
  }

  /** Payloads, current URLs and signing secrets of the claimed deliveries. */
  private async prepare(rows: DeliveryRow[], now: Date): Promise<Claimed[]> {
    const eventIds = [...new Set(rows.map((r) => r.event_id))];
    const endpointIds = [...new Set(rows.map((r) => r.endpoint_id))];
    const [events, endpoints] = await Promise.all([
      this.db.selectFrom('events').select(['id', 'payload']).where('id', 'in', eventIds).execute(),
      this.db.selectFrom('webhook_endpoints').select(['id', 'url', 'secret', 'previous_secret', 'previous_secret_expires_at']).where('id', 'in', endpointIds).execute(),
    ]);
    const payloads = new Map(events.map((e) => [e.id, e.payload]));
    let box: SecretBox | Error;
    try {
      box = await webhookSecretBox(this.ctx.config);
    } catch (error) {
      box = error as Error;
    }
    const byEndpoint = new Map<string, { url: string; secrets: string[] | Error }>();
    for (const endpoint of endpoints) {
      let secrets: string[] | Error;
      try {
        if (box instanceof Error) throw box;
        secrets = signingSecrets(box, endpoint, now);
      } catch (error) {
        secrets = error as Error;
        this.logger.error({ err: error, endpoint: endpoint.id }, 'webhook worker: the endpoint secret cannot be read; its deliveries fail until the secret key is fixed');
      }
      byEndpoint.set(endpoint.id, { url: endpoint.url, secrets });
    }
    return rows
      .sort((a, b) => (a.next_attempt_at < b.next_attempt_at ? -1 : a.next_attempt_at > b.next_attempt_at ? 1 : Number(a.sequence) - Number(b.sequence)))
      .map((row) => {
        const endpoint = byEndpoint.get(row.endpoint_id);
        return { row, url: endpoint?.url ?? '', payload: payloads.get(row.event_id), secrets: endpoint?.secrets ?? new Error('the endpoint is gone') };
      });
  }

  /** One HTTP attempt; never throws. */
  private async attempt(claimed: Claimed): Promise<Outcome> {
    const startedAt = this.ctx.now();
    const fail = (error: string): Outcome => ({ claimed, startedAt: startedAt.toISOString(), finishedAt: this.ctx.now(), response: { statusCode: null, error, excerpt: '', location: undefined, durationMs: 0 } });
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
    return { claimed, startedAt: startedAt.toISOString(), finishedAt: this.ctx.now(), response };
  }

  /** Writes the attempts and the deliveries' next state, in one transaction. */
  private async record(outcomes: readonly Outcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    const dead: string[] = [];
    const disabled: string[] = [];
    await this.db.transaction().execute(async (trx) => {
      for (const { claimed, startedAt, finishedAt, response } of outcomes) {
        const { row } = claimed;
        const at = finishedAt.toISOString();
        const attempt = Number(row.attempts);
        const status = response.statusCode;
        const success = status !== null && status >= 200 && status < 300;
        const error = success ? null : describeFailure(response);
        await trx.insertInto('webhook_attempts').values({
          id: randomUUID(),
          delivery_id: row.id,
          event_id: row.event_id,
          event_type: row.event_type,
          endpoint_id: row.endpoint_id,
          account_id: row.account_id,
          url: claimed.url,
          attempt,
          status_code: status,
          success: success ? 1 : 0,
          duration_ms: response.durationMs,
          error,
          started_at: startedAt,
          finished_at: at,
        }).execute();
        const mine = trx.updateTable('webhook_deliveries').where('id', '=', row.id).where('status', '=', 'delivering').where('lease_owner', '=', this.owner);
        const common = { lease_owner: null, lease_expires_at: null, last_status_code: status, last_error: error, updated_at: at };
        if (success) {
          await mine.set({ ...common, status: 'succeeded', delivered_at: at }).execute();
        } else if (status === 410) {
          const reason = truncate(`the receiver answered 410 Gone at ${at} (event ${row.event_id}); save the webhook again to enable it`);
          const off = await trx.updateTable('webhook_endpoints').set({ status: 'disabled', disabled_reason: reason, disabled_at: at, updated_at: at }).where('id', '=', row.endpoint_id).where('status', '=', 'active').executeTakeFirst();
          if (Number(off.numUpdatedRows) > 0) disabled.push(row.endpoint_id);
          await trx.updateTable('webhook_deliveries').set({ status: 'paused', updated_at: at }).where('endpoint_id', '=', row.endpoint_id).where('status', '=', 'pending').execute();
          await mine.set({ ...common, status: 'paused' }).execute();
        } else if (attempt >= Number(row.max_attempts)) {
          const result = await mine.set({ ...common, status: 'dead' }).executeTakeFirst();
          if (Number(result.numUpdatedRows) > 0) dead.push(row.id);
        } else {
          await mine.set({ ...common, status: 'pending', next_attempt_at: new Date(finishedAt.getTime() + retryDelayMs(attempt, this.random)).toISOString() }).execute();
        }
      }
    });
    for (const endpoint of disabled) this.logger.warn({ endpoint }, 'webhook endpoint disabled: the receiver answered 410 Gone');
    if (dead.length > 0) this.logger.warn({ deliveries: dead }, 'webhook deliveries are dead after their last attempt (listed at GET /webhook/deliveries/?status=dead)');
  }

  /** Deliveries whose worker vanished mid-attempt: logged as interrupted, then retried (or dead after the last attempt). */
  private async reapExpiredLeases(): Promise<void> {
    const at = this.ctx.now().toISOString();
    const expired = await this.db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
      .selectAll('d')
      .select('e.url')
      .where('d.status', '=', 'delivering')
      .where('d.lease_expires_at', '<=', at)
      .limit(500)
      .execute();
    if (expired.length === 0) return;
    let reclaimed = 0;
    await this.db.transaction().execute(async (trx) => {
      for (const row of expired) {
        const last = Number(row.attempts) >= Number(row.max_attempts);
        const result = await trx
          .updateTable('webhook_deliveries')
          .set({ status: last ? 'dead' : 'pending', next_attempt_at: at, lease_owner: null, lease_expires_at: null, last_status_code: null, last_error: INTERRUPTED, updated_at: at })
          .where('id', '=', row.id)
          .where('status', '=', 'delivering')
          .where('lease_expires_at', '<=', at)
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) === 0) continue;
        reclaimed++;
        await trx.insertInto('webhook_attempts').values({
          id: randomUUID(), delivery_id: row.id, event_id: row.event_id, event_type: row.event_type, endpoint_id: row.endpoint_id, account_id: row.account_id,
          url: row.url, attempt: Number(row.attempts), status_code: null, success: 0, duration_ms: 0, error: INTERRUPTED, started_at: row.updated_at, finished_at: at,
        }).execute();
      }
    });
    if (reclaimed > 0) this.logger.warn({ deliveries: reclaimed }, 'webhook worker: retrying deliveries whose worker stopped mid-attempt');
  }

  /** PostgreSQL: a connection that LISTENs, so a commit anywhere wakes this worker at once. */
  private async listen(): Promise<void> {
    if (!this.started || this.stopping) return;
    const client = new pg.Client({ connectionString: this.ctx.config.databaseUrl });
    const retry = (): void => {
      if (this.listener === client) this.listener = undefined;
      client.end().catch(() => undefined);
      if (!this.started || this.stopping) return;
      clearTimeout(this.listenTimer);
      this.listenTimer = setTimeout(() => void this.listen(), LISTEN_RETRY_MS);
    };
    client.on('error', retry);
    client.on('notification', () => this.poke());
    try {
      await client.connect();
      await client.query(`LISTEN ${WEBHOOK_CHANNEL}`);
      if (!this.started || this.stopping) {
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

/** Used by start.ts: the worker with the server's settings. */
export function webhookWorkerFor(ctx: Pick<Context, 'db' | 'dialect' | 'config' | 'now'>, options: WebhookWorkerOptions = {}): WebhookWorker {
  return new WebhookWorker(ctx, options);
}
