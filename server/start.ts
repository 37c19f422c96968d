/** Wires settings to storage, blob store and PDF inspector; runs migrations; starts listening. */
import { join } from 'node:path';
import type { Config } from './config.js';
import { buildServerApp } from './app.js';
import { bootstrapFirstAccount, type BootstrapResult } from './domain/accounts/bootstrap.js';
import type { Context } from './domain/context.js';
import { createPdfInspector } from './domain/documents/pdf-inspector.js';
import { DatabaseBlobStore, FileBlobStore } from './storage/blobs.js';
import { connectStorage } from './storage/connect.js';
import { migrateToLatest } from './storage/migrations/index.js';
import type { App } from './routes/types.js';
import type { KeyIdentity } from './domain/keys/api-keys.js';
import { TtlCache } from './domain/ttl-cache.js';
import { sealSource, testSealSource, type SealSource } from './seal/load-seal.js';
import { defaultTransports, type Transports } from './net/transports.js';
import { JobRunner, type JobLogger } from './jobs/runner.js';
import { mailJobHandlers } from './mail/send.js';
import { workflowJobHandlers } from './domain/workflow/job-handlers.js';
import { webhookWorkerFor } from './webhooks/worker.js';
import { blobGcJobHandlers, scheduleBlobGc } from './storage/blob-gc.js';
import { scheduleReminderSweep } from './domain/workflow/auto-remind.js';

/** How long an authenticated API key is trusted without asking the database (SQLite only). */
const KEY_CACHE_MS = 5_000;

export interface Runtime {
  readonly ctx: Context;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  /** Another seal than the installation seal or PKCS#12 (e.g. a PKCS#11 key, which the CLI opens through native/). */
  readonly seal?: SealSource;
  /** The Aadhaar eSign ASP key on a PKCS#11 token (MOHAR_ESIGN_ASP_PKCS11_*), opened by the CLI the same way. */
  readonly esignAsp?: SealSource;
  /** Other ways out to the network than the default transports (net/transports.ts). */
  readonly transports?: Transports;
}

export async function openRuntime(
  config: Config,
  now: () => Date = () => new Date(),
  options: RuntimeOptions = {},
): Promise<Runtime> {
  const storage = connectStorage({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    await migrateToLatest(storage.db);
  } catch (error) {
    await storage.close();
    throw error;
  }
  const blobs =
    storage.dialect === 'postgres'
      ? new DatabaseBlobStore(storage.db)
      : new FileBlobStore(join(config.dataDir, 'blobs'));
  const pdf = createPdfInspector({ limits: { maxPages: config.maxPdfPages } });
  // One SQLite file has one server process, so a cached key identity can be dropped at once on rotation.
  // Several PostgreSQL instances could not tell each other, so there the cache is off.
  const keyCache = new TtlCache<string, KeyIdentity>(storage.dialect === 'sqlite' ? KEY_CACHE_MS : 0);
  const seal = options.seal ?? sealSource({ db: storage.db, config, now });
  const testSeal = testSealSource({ db: storage.db, config, now });
  const transports = options.transports ?? defaultTransports(config);
  const ctx: Context = {
    db: storage.db,
    dialect: storage.dialect,
    ...(storage.sqlite ? { sqlite: storage.sqlite } : {}),
    ...(storage.postgres ? { postgres: storage.postgres } : {}),
    blobs,
    config,
    pdf,
    now,
    keyCache,
    seal,
    testSeal,
    transports,
    ...(options.esignAsp ? { esignAsp: options.esignAsp } : {}),
  };
  return {
    ctx,
    async close() {
      await pdf.close();
      await storage.close();
    },
  };
}

export interface RunningServer {
  readonly app: App;
  readonly url: string;
  readonly bootstrap: BootstrapResult | undefined;
  close(): Promise<void>;
}

/** The job runner with every handler the server knows (mail, completion, expiry, blob collection). */
export function jobRunnerFor(ctx: Context, options: { pollIntervalMs?: number; logger?: JobLogger } = {}): JobRunner {
  return new JobRunner({
    db: ctx.db,
    dialect: ctx.dialect,
    handlers: { ...mailJobHandlers(ctx), ...workflowJobHandlers(ctx), ...blobGcJobHandlers(ctx) },
    now: ctx.now,
    leaseMs: ctx.config.jobLeaseSeconds * 1000,
    ...options,
  });
}

export async function startServer(config: Config, options: RuntimeOptions = {}): Promise<RunningServer> {
  const runtime = await openRuntime(config, () => new Date(), options);
  const bootstrap = await bootstrapFirstAccount(runtime.ctx);
  // Create the installation seal now: a wrong secret key should fail at start, not at the first completion.
  await runtime.ctx.seal();
  const { app, inFlight } = await buildServerApp(runtime.ctx);
  const runner = jobRunnerFor(runtime.ctx, { logger: app.log });
  // The hourly blob collector keeps itself scheduled; this starts the chain (once per hour slot).
  await scheduleBlobGc(runtime.ctx.db, runtime.ctx.now());
  // Likewise the hourly automatic reminders (domain/workflow/auto-remind.ts).
  await scheduleReminderSweep(runtime.ctx.db, runtime.ctx.now());
  runner.start();
  // Webhooks have their own worker: deliveries never wait behind mail or completion jobs.
  const webhooks = webhookWorkerFor(runtime.ctx, { logger: app.log });
  webhooks.start();
  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  return {
    app,
    url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`,
    bootstrap,
    async close() {
      await app.close();
      await inFlight.drain();
      await runner.stop({ timeoutMs: 30_000 });
      await webhooks.stop({ timeoutMs: 15_000 });
      await runtime.close();
    },
  };
}
