/**
 * What every domain operation receives: storage, blob store, settings, a clock (tests move time) and the ports (seal,
 * network, logger).
 */
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { BlobStore } from '../storage/blobs.js';
import type { DialectName } from '../storage/connect.js';
import type { SqliteFastPath } from '../storage/sqlite-fast-path.js';
import type { NamedStatements } from '../storage/connect.js';
import type { Database, DataMode } from '../storage/schema.js';
import type { PdfInspector } from './documents/pdf-inspector.js';
import type { KeyIdentity } from './keys/api-keys.js';
import type { Logger } from './logger.js';
import type { TtlCache } from './ttl-cache.js';
import type { SignatureProvider } from '../../pdf/index.js';
import type { Transports } from '../net/transports.js';

/** Live or test data: the mode a caller's key or login gives the operations it calls (decision 24). */
export type { DataMode };

export interface Context {
  readonly db: Kysely<Database>;
  readonly dialect: DialectName;
  /** SQLite only: prepared statements and group commit for the hottest calls (storage/sqlite-fast-path.ts). */
  readonly sqlite?: SqliteFastPath;
  /** PostgreSQL only: statements prepared once per pooled connection (storage/pg-statement.ts). */
  readonly postgres?: NamedStatements;
  readonly blobs: BlobStore;
  readonly config: Config;
  readonly pdf: PdfInspector;
  readonly now: () => Date;
  /** Authenticated API keys by SHA-256, briefly (see docs/decisions.md); cleared on rotation. */
  readonly keyCache: TtlCache<string, KeyIdentity>;
  /** The installation's seal key (or the configured PKCS#12), loaded on first use. */
  readonly seal: () => Promise<SignatureProvider>;
  /** The Aadhaar eSign ASP key when it is on a PKCS#11 token (MOHAR_ESIGN_ASP_PKCS11_*), opened by the CLI. */
  readonly esignAsp?: () => Promise<SignatureProvider>;
  /** The test seal (server/seal/installation-seal.ts, kind 'test'): seals test envelopes, never live ones. */
  readonly testSeal: () => Promise<SignatureProvider>;
  /** Outbound HTTP (TSA, OCSP, CRL, caIssuers, eSign status), handed in like the seal: server/net/transports.ts. */
  readonly transports: Transports;
  /** Where the domain reports what it recovers from (a completion the job retries): the server's logger, logger.ts. */
  readonly log: Logger;
  /**
   * The caller's data mode on envelope-API requests (http/auth-hooks.ts forCaller): loads by id and lists
   * see only rows of this mode, and what it creates gets it. Unset for jobs and signer links, which reach an
   * envelope by its id or token and act in the envelope's own mode.
   */
  readonly mode?: DataMode;
}

/** The seal for an envelope of this mode: a test envelope is sealed by the test seal, never the live one. */
export function sealFor(ctx: Context, mode: DataMode | undefined): Promise<SignatureProvider> {
  return mode === 'test' ? ctx.testSeal() : ctx.seal();
}
