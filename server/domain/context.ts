/** What every domain operation receives: storage, blob store, settings and a clock (tests move time). */
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { BlobStore } from '../storage/blobs.js';
import type { DialectName } from '../storage/connect.js';
import type { SqliteFastPath } from '../storage/sqlite-fast-path.js';
import type { Database } from '../storage/schema.js';
import type { PdfInspector } from './documents/pdf-inspector.js';
import type { KeyIdentity } from './keys/api-keys.js';
import type { TtlCache } from './ttl-cache.js';
import type { SignatureProvider } from '../../pdf/sign/ports.js';

export interface Context {
  readonly db: Kysely<Database>;
  readonly dialect: DialectName;
  /** SQLite only: prepared statements and group commit for the hottest calls (storage/sqlite-fast-path.ts). */
  readonly sqlite?: SqliteFastPath;
  readonly blobs: BlobStore;
  readonly config: Config;
  readonly pdf: PdfInspector;
  readonly now: () => Date;
  /** Authenticated API keys by SHA-256, briefly (see docs/decisions.md); cleared on rotation. */
  readonly keyCache: TtlCache<string, KeyIdentity>;
  /** The installation's seal key (or the configured PKCS#12), loaded on first use. */
  readonly seal: () => Promise<SignatureProvider>;
}

export function iso(date: Date): string {
  return date.toISOString();
}
