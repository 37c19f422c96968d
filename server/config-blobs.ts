/**
 * Where PDF bytes are stored (MOHAR_BLOB_STORE) and the S3-compatible bucket's settings (MOHAR_S3_*), parsed by
 * parseConfig in config.ts (nothing else reads the environment).
 *
 * The S3 settings are parsed whenever any is given, not only with MOHAR_BLOB_STORE=s3: `mohar blobs migrate --to s3`
 * runs while the server still uses its old store, and needs the bucket it copies into.
 */
import { ConfigError } from './config-error.js';

type Env = Readonly<Record<string, string | undefined>>;

export const BLOB_STORE_KINDS = ['file', 'database', 's3'] as const;
/** file: one file per blob under the data dir; database: the `blobs` table; s3: an S3-compatible bucket. */
export type BlobStoreKind = (typeof BLOB_STORE_KINDS)[number];

export interface S3Settings {
  /** The S3 API's URL (MinIO, Garage, Ceph, R2); undefined: AWS, by region. */
  readonly endpoint: string | undefined;
  readonly region: string;
  readonly bucket: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** Bucket in the path (`https://host/bucket/key`) instead of the host name: MinIO, Garage, Ceph without DNS. */
  readonly forcePathStyle: boolean;
}

const S3_NAMES = [
  'MOHAR_S3_ENDPOINT',
  'MOHAR_S3_REGION',
  'MOHAR_S3_BUCKET',
  'MOHAR_S3_ACCESS_KEY_ID',
  'MOHAR_S3_SECRET_ACCESS_KEY',
  'MOHAR_S3_FORCE_PATH_STYLE',
] as const;

function text(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** MOHAR_BLOB_STORE; unset keeps what Mohar always did: files with SQLite, the `blobs` table with PostgreSQL. */
export function blobStoreKind(env: Env, onPostgres: boolean): BlobStoreKind {
  const raw = text(env, 'MOHAR_BLOB_STORE');
  if (raw === undefined) return onPostgres ? 'database' : 'file';
  const kind = BLOB_STORE_KINDS.find((k) => k === raw);
  if (kind === undefined) {
    throw new ConfigError('MOHAR_BLOB_STORE', `must be one of ${BLOB_STORE_KINDS.join(', ')} (got "${raw}")`);
  }
  return kind;
}

/** The bucket's settings, or undefined when none is given; with MOHAR_BLOB_STORE=s3 they are required. */
export function s3Settings(env: Env, kind: BlobStoreKind): S3Settings | undefined {
  if (kind !== 's3' && S3_NAMES.every((name) => text(env, name) === undefined)) return undefined;
  const bucket = required(env, 'MOHAR_S3_BUCKET', 'the bucket that holds the PDFs');
  // S3 bucket names: 3 to 63 lower-case letters, digits, dots and hyphens (R2 and Garage follow the same rule).
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    throw new ConfigError('MOHAR_S3_BUCKET', `must be an S3 bucket name (got "${bucket}")`);
  }
  return {
    endpoint: endpoint(env),
    // us-east-1 is what MinIO and Ceph answer to by default; R2 wants "auto", Garage its configured s3_region.
    region: text(env, 'MOHAR_S3_REGION') ?? 'us-east-1',
    bucket,
    accessKeyId: required(env, 'MOHAR_S3_ACCESS_KEY_ID', 'the access key of the bucket'),
    // Never echoed: only whether it is there is checked.
    secretAccessKey: required(env, 'MOHAR_S3_SECRET_ACCESS_KEY', 'the secret key of the bucket'),
    forcePathStyle: yesNo(env, 'MOHAR_S3_FORCE_PATH_STYLE'),
  };
}

function required(env: Env, name: string, what: string): string {
  const value = text(env, name);
  if (value === undefined) throw new ConfigError(name, `is required for the S3 blob store (${what})`);
  return value;
}

function endpoint(env: Env): string | undefined {
  const raw = text(env, 'MOHAR_S3_ENDPOINT');
  if (raw === undefined) return undefined;
  if (!URL.canParse(raw)) throw new ConfigError('MOHAR_S3_ENDPOINT', `must be a URL (got "${raw}")`);
  const parsed = new URL(raw);
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new ConfigError('MOHAR_S3_ENDPOINT', `must start with https:// or http:// (got "${parsed.protocol}//…")`);
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw new ConfigError('MOHAR_S3_ENDPOINT', 'must not contain a user name or password (use MOHAR_S3_ACCESS_KEY_ID)');
  }
  return raw.replace(/\/+$/, '');
}

function yesNo(env: Env, name: string): boolean {
  const raw = text(env, name);
  if (raw === undefined || raw === '0' || raw === 'false') return false;
  if (raw === '1' || raw === 'true') return true;
  throw new ConfigError(name, `must be 1 or 0 (got "${raw}")`);
}
