/**
 * Settings wired to storage, blob store, PDF inspector, seal and transports, with migrations run: what the server
 * and the CLI's database commands share. Apart from start.ts so that a CLI command loads no HTTP app.
 */
import type { Config } from './config.js';
import type { Context } from './domain/context.js';
import { createPdfInspector } from './domain/documents/pdf-inspector.js';
import { connectStorage } from './storage/connect.js';
import { migrateToLatest } from './storage/migrations/index.js';
import { openBlobStore } from './storage/open-blobs.js';
import type { KeyIdentity } from './domain/keys/api-keys.js';
import { TtlCache } from './domain/ttl-cache.js';
import { quietLogger, type Logger } from './domain/logger.js';
import { sealSource, testSealSource, type SealSource } from './seal/load-seal.js';
import { defaultTransports, type Transports } from './net/transports.js';

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
  /** The domain's logger; default none (the server's app puts its own on the Context it runs: app.ts). */
  readonly log?: Logger;
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
  const { blobs, close: closeBlobs } = openBlobStore(config.blobStore, {
    db: storage.db,
    dataDir: config.dataDir,
    s3: config.s3,
  });
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
    log: options.log ?? quietLogger,
    ...(options.esignAsp ? { esignAsp: options.esignAsp } : {}),
  };
  return {
    ctx,
    async close() {
      await pdf.close();
      closeBlobs();
      await storage.close();
    },
  };
}
