/**
 * Settings are read from the environment exactly once, here, at start-up. Nothing else in Mohar
 * reads process.env: everything receives a Config. A bad setting stops start-up with one line
 * naming it (ConfigError).
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { delimiter, resolve } from 'node:path';
import { ConfigError } from './config-error.js';
import { blobStoreKind, s3Settings, type BlobStoreKind, type S3Settings } from './config-blobs.js';
import { esignConfig, esignSandboxEnabled, type EsignConfig } from './config-esign.js';
import { metricsConfig, shutdownTimeoutMs, type MetricsConfig } from './config-ops.js';

// The CLI, the desktop shell and the tests catch it where they call parseConfig.
export { ConfigError };

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  /** undefined = SQLite file `mohar.sqlite` in dataDir; otherwise a postgres:// URL. */
  readonly databaseUrl: string | undefined;
  /** Where PDF bytes are stored (MOHAR_BLOB_STORE, config-blobs.ts); unset: file on SQLite, database on PostgreSQL. */
  readonly blobStore: BlobStoreKind;
  /** The S3-compatible bucket (MOHAR_S3_*): required with blobStore s3, also read for `mohar blobs migrate --to s3`. */
  readonly s3: S3Settings | undefined;
  readonly baseUrl: string;
  readonly maxPdfBytes: number;
  readonly maxPdfPages: number;
  /** Most rows in one POST /bulk-sends (MOHAR_BULK_MAX_ROWS). */
  readonly bulkMaxRows: number;
  /**
   * How long a job (and a bulk send row) stays claimed by a worker that stopped renewing it (MOHAR_JOB_LEASE_SECONDS).
   */
  readonly jobLeaseSeconds: number;
  readonly adminEmail: string | undefined;
  readonly adminPassword: string | undefined;
  readonly logLevel: LogLevel;
  /** Extra PKCS#11 module paths (MOHAR_PKCS11_MODULES, separated like PATH). */
  readonly pkcs11Modules: readonly string[];
  /** Mohar Desktop: the hosted Mohar server it opens (MOHAR_DESKTOP_SERVER_URL); unset: it runs the embedded server. */
  readonly desktopServerUrl: string | undefined;
  /** Mohar Desktop: further origins whose signing pages may use the token bridge and mohar:// links. */
  readonly desktopTrustedOrigins: readonly string[];
  /** RFC 3161 timestamp authority for B-T and above. */
  readonly tsaUrl: string | undefined;
  /** SMTP server for mail (smtp:// or smtps://); unset: mail is kept in the database outbox. */
  readonly smtpUrl: string | undefined;
  /** From: address of Mohar's mail. */
  readonly mailFrom: string;
  /**
   * Allow the mail servers accounts set in the console (server/mail/transport-settings.ts) on private and loopback
   * addresses (MOHAR_MAIL_ALLOW_PRIVATE; LANs, tests). MOHAR_SMTP_URL is the operator's own and never checked.
   */
  readonly mailAllowPrivate: boolean;
  /** Master key material that encrypts secrets at rest (the seal key); unset: a 0600 key file in the data dir. */
  readonly secretKey: string | undefined;
  /** A PKCS#12 file with the seal key and certificate, instead of the generated installation seal. */
  readonly sealP12: string | undefined;
  readonly sealP12Passphrase: string | undefined;
  /** A seal key on a PKCS#11 token or HSM, instead of the installation seal or a PKCS#12 file. */
  readonly sealPkcs11:
    | { readonly module: string; readonly token: string | undefined; readonly certId: string; readonly pin: string }
    | undefined;
  /**
   * Allow fetches for untrusted URLs (revocation data, later document URLs) to reach private and loopback addresses.
   */
  readonly fetchAllowPrivate: boolean;
  /**
   * Extra DSC trust anchors (DER), from the PEM bundle MOHAR_DSC_TRUST_ANCHORS, beside the built-in CCA India roots.
   */
  readonly dscTrustAnchors: readonly Uint8Array[];
  /** Allow webhook URLs on private and loopback addresses, and plain http (LANs, tests). */
  readonly webhookAllowPrivate: boolean;
  /** After a webhook secret rotation the old secret keeps signing alongside the new one this long. */
  readonly webhookSecretOverlapHours: number;
  /** Requests per minute per API key (burst limit, both APIs); 0 turns the limit off. */
  readonly rateLimitPerMinute: number;
  /** Requests per minute per signing link on the token routes ({api_base}/signing/{token}…); 0 turns it off. */
  readonly tokenRateLimitPerMinute: number;
  /** Requests per minute per client address on the token routes; 0 turns it off. */
  readonly addressRateLimitPerMinute: number;
  /** Uploads per minute per client address to the public verifier (POST /verify); 0 turns it off. */
  readonly verifyRateLimitPerMinute: number;
  /** Days a mailed or legacy signing link lives at most (never past the envelope's expiry); 1 to 90, default 30. */
  readonly signingLinkTtlDays: number;
  /**
   * Which proxies' X-Forwarded-For to believe for the client address (MOHAR_TRUST_PROXY, Fastify's trustProxy):
   * false (default) = the socket's address; true = any proxy; a list = only these addresses or CIDR ranges.
   */
  readonly trustProxy: boolean | readonly string[];
  /**
   * Certify each prepared document at send (DocMDP P=2, the installation seal); MOHAR_CERTIFY_AT_SEND=0 turns it off.
   */
  readonly certifyAtSend: boolean;
  /** Aadhaar eSign (MOHAR_ESIGN_*, server/config-esign.ts); undefined: `aadhaar` recipients are refused. */
  readonly esign: EsignConfig | undefined;
  /**
   * MOHAR_ESIGN_SANDBOX (default on): test data signs by Aadhaar through the built-in ESP simulator
   * (domain/aadhaar/esign-for.ts).
   */
  readonly esignSandbox: boolean;
  /** Prometheus metrics at /metrics (MOHAR_METRICS, MOHAR_METRICS_TOKEN, MOHAR_METRICS_LISTEN; config-ops.ts). */
  readonly metrics: MetricsConfig;
  /** SIGTERM waits this long for requests and jobs, then forces the exit (MOHAR_SHUTDOWN_TIMEOUT_MS). */
  readonly shutdownTimeoutMs: number;
  /**
   * Tests only (MOHAR_TEST_CRASH_POINT): where the process kills itself with SIGKILL, once, so that a test can crash
   * a real server at a chosen moment. `after-effect`: after an Idempotency-Key request's effect is committed, before
   * its answer is stored or sent (http/idempotency.ts). Unset in production.
   */
  readonly testCrashPoint?: CrashPoint | undefined;
}

export const CRASH_POINTS = ['after-effect'] as const;
export type CrashPoint = (typeof CRASH_POINTS)[number];

type Env = Readonly<Record<string, string | undefined>>;

const SIZE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  kib: 1024,
  kb: 1000,
  mib: 1024 ** 2,
  mb: 1000 ** 2,
  gib: 1024 ** 3,
  gb: 1000 ** 3,
};

function text(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number from ${min} to ${max} (got "${raw}")`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be from ${min} to ${max} (got ${raw})`);
  return value;
}

/** Accepts "52428800", "50MiB", "50 MB", "1GiB". */
function byteSize(env: Env, name: string, fallback: number): number {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  const match = /^(\d+)\s*([a-z]*)$/i.exec(raw);
  const unit = match ? SIZE_UNITS[match[2]!.toLowerCase()] : undefined;
  if (!match || unit === undefined) {
    throw new ConfigError(name, `must be a size such as 52428800, 50MiB or 1GiB (got "${raw}")`);
  }
  const value = Number(match[1]) * unit;
  if (value < 1024) throw new ConfigError(name, `must be at least 1 KiB (got "${raw}")`);
  return value;
}

function url(env: Env, name: string, protocols: readonly string[]): string | undefined {
  const raw = text(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be a URL (got "${redactUrl(raw)}")`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(
      name,
      `must start with ${protocols.map((p) => `${p}//`).join(' or ')} (got "${parsed.protocol}//…")`,
    );
  }
  return raw;
}

/** Database URLs carry passwords: never echo them back. */
function redactUrl(raw: string): string {
  return raw.replace(/\/\/[^@/]*@/, '//***@');
}

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function parseConfig(env: Env, cwd: string = process.cwd()): Config {
  const host = text(env, 'MOHAR_HOST') ?? '127.0.0.1';
  if (!/^[\w.:-]+$/.test(host)) {
    throw new ConfigError('MOHAR_HOST', `must be a host name or IP address (got "${host}")`);
  }
  const port = integer(env, 'MOHAR_PORT', 8080, 0, 65535);
  const databaseUrl = url(env, 'MOHAR_DATABASE_URL', ['postgres:', 'postgresql:']);
  const blobStore = blobStoreKind(env, databaseUrl !== undefined);
  const baseUrlRaw = url(env, 'MOHAR_BASE_URL', ['http:', 'https:']);
  const displayHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  const baseUrl = (baseUrlRaw ?? `http://${displayHost}:${port}`).replace(/\/+$/, '');
  const adminEmail = text(env, 'MOHAR_ADMIN_EMAIL');
  if (adminEmail !== undefined && !/^[^@\s]+@[^@\s]+$/.test(adminEmail)) {
    throw new ConfigError('MOHAR_ADMIN_EMAIL', `must be an e-mail address (got "${adminEmail}")`);
  }
  const adminPassword = text(env, 'MOHAR_ADMIN_PASSWORD');
  if (adminPassword !== undefined && adminPassword.length < 12) {
    throw new ConfigError('MOHAR_ADMIN_PASSWORD', 'must be at least 12 characters long');
  }
  const logLevel = (text(env, 'MOHAR_LOG_LEVEL') ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError('MOHAR_LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`);
  }
  return {
    host,
    port,
    dataDir: resolve(cwd, text(env, 'MOHAR_DATA_DIR') ?? './data'),
    databaseUrl,
    blobStore,
    s3: s3Settings(env, blobStore),
    baseUrl,
    maxPdfBytes: byteSize(env, 'MOHAR_MAX_PDF_BYTES', 50 * 1024 * 1024),
    maxPdfPages: integer(env, 'MOHAR_MAX_PDF_PAGES', 10_000, 1, 1_000_000),
    bulkMaxRows: integer(env, 'MOHAR_BULK_MAX_ROWS', 10_000, 1, 100_000),
    jobLeaseSeconds: integer(env, 'MOHAR_JOB_LEASE_SECONDS', 60, 2, 3600),
    adminEmail,
    adminPassword,
    logLevel,
    pkcs11Modules: (text(env, 'MOHAR_PKCS11_MODULES') ?? '')
      .split(delimiter)
      .map((p) => p.trim())
      .filter((p) => p !== ''),
    desktopServerUrl: desktopServerUrl(env),
    desktopTrustedOrigins: desktopTrustedOrigins(env),
    tsaUrl: url(env, 'MOHAR_TSA_URL', ['http:', 'https:']),
    smtpUrl: url(env, 'MOHAR_SMTP_URL', ['smtp:', 'smtps:']),
    mailFrom: mailFrom(env),
    mailAllowPrivate: flag(env, 'MOHAR_MAIL_ALLOW_PRIVATE'),
    secretKey: secretKey(env),
    sealP12: text(env, 'MOHAR_SEAL_P12') === undefined ? undefined : resolve(cwd, text(env, 'MOHAR_SEAL_P12')!),
    sealP12Passphrase: env.MOHAR_SEAL_P12_PASSPHRASE,
    fetchAllowPrivate: flag(env, 'MOHAR_FETCH_ALLOW_PRIVATE'),
    dscTrustAnchors: dscTrustAnchors(env, cwd),
    webhookAllowPrivate: flag(env, 'MOHAR_WEBHOOK_ALLOW_PRIVATE'),
    webhookSecretOverlapHours: integer(env, 'MOHAR_WEBHOOK_SECRET_OVERLAP_HOURS', 24, 0, 720),
    sealPkcs11: sealPkcs11(env, cwd),
    rateLimitPerMinute: integer(env, 'MOHAR_RATE_LIMIT_PER_MINUTE', 120, 0, 1_000_000_000),
    tokenRateLimitPerMinute: integer(env, 'MOHAR_TOKEN_RATE_LIMIT_PER_MINUTE', 120, 0, 1_000_000_000),
    addressRateLimitPerMinute: integer(env, 'MOHAR_ADDRESS_RATE_LIMIT_PER_MINUTE', 600, 0, 1_000_000_000),
    verifyRateLimitPerMinute: integer(env, 'MOHAR_VERIFY_RATE_LIMIT_PER_MINUTE', 10, 0, 1_000_000_000),
    signingLinkTtlDays: integer(env, 'MOHAR_SIGNING_LINK_TTL_DAYS', 30, 1, 90),
    trustProxy: trustProxy(env),
    certifyAtSend: text(env, 'MOHAR_CERTIFY_AT_SEND') === undefined || flag(env, 'MOHAR_CERTIFY_AT_SEND'),
    esign: esignConfig(env, cwd),
    esignSandbox: esignSandboxEnabled(env),
    metrics: metricsConfig(env),
    shutdownTimeoutMs: shutdownTimeoutMs(env),
    testCrashPoint: crashPoint(env),
  };
}

function crashPoint(env: Env): CrashPoint | undefined {
  const value = text(env, 'MOHAR_TEST_CRASH_POINT');
  if (value === undefined) return undefined;
  const known = CRASH_POINTS.find((p) => p === value);
  if (!known) throw new ConfigError('MOHAR_TEST_CRASH_POINT', `must be one of ${CRASH_POINTS.join(', ')}`);
  return known;
}

/** The PEM bundle of extra DSC trust anchors, read once at start-up: every CERTIFICATE block as DER. */
function dscTrustAnchors(env: Env, cwd: string): Uint8Array[] {
  const path = text(env, 'MOHAR_DSC_TRUST_ANCHORS');
  if (path === undefined) return [];
  let pem: string;
  try {
    pem = readFileSync(resolve(cwd, path), 'latin1');
  } catch (error) {
    throw new ConfigError('MOHAR_DSC_TRUST_ANCHORS', `cannot read ${path}: ${(error as Error).message}`);
  }
  const blocks = [...pem.matchAll(/-----BEGIN CERTIFICATE-----([A-Za-z0-9+/=\s]+)-----END CERTIFICATE-----/g)].map(
    (m) => new Uint8Array(Buffer.from(m[1]!.replace(/\s+/g, ''), 'base64')),
  );
  if (blocks.length === 0) throw new ConfigError('MOHAR_DSC_TRUST_ANCHORS', `${path} holds no PEM certificate`);
  return blocks;
}

function sealPkcs11(env: Env, cwd: string): Config['sealPkcs11'] {
  const module = text(env, 'MOHAR_SEAL_PKCS11_MODULE');
  if (module === undefined) return undefined;
  if (text(env, 'MOHAR_SEAL_P12') !== undefined) {
    throw new ConfigError(
      'MOHAR_SEAL_PKCS11_MODULE',
      'set either MOHAR_SEAL_P12 or MOHAR_SEAL_PKCS11_MODULE, not both',
    );
  }
  const certId = text(env, 'MOHAR_SEAL_PKCS11_CERT_ID');
  if (certId === undefined || !/^[0-9a-fA-F:]+$/.test(certId)) {
    throw new ConfigError('MOHAR_SEAL_PKCS11_CERT_ID', 'must be the hex CKA_ID of the seal certificate on the token');
  }
  const pin = env.MOHAR_SEAL_PKCS11_PIN;
  if (pin === undefined || pin === '') {
    throw new ConfigError('MOHAR_SEAL_PKCS11_PIN', 'the token PIN is needed for an unattended seal');
  }
  return { module: resolve(cwd, module), token: text(env, 'MOHAR_SEAL_PKCS11_TOKEN'), certId, pin };
}

/** MOHAR_TRUST_PROXY: 0/false (default), 1/true, or a comma-separated list of proxy addresses and CIDR ranges. */
function trustProxy(env: Env): boolean | string[] {
  const raw = text(env, 'MOHAR_TRUST_PROXY');
  if (raw === undefined || raw === '0' || raw === 'false') return false;
  if (raw === '1' || raw === 'true') return true;
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of entries) {
    const [address = '', bits, extra] = entry.split('/');
    const family = isIP(address);
    const maxBits = family === 6 ? 128 : 32;
    if (
      family === 0 ||
      extra !== undefined ||
      (bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= maxBits))
    ) {
      throw new ConfigError(
        'MOHAR_TRUST_PROXY',
        `must be 1, 0 or a comma-separated list of proxy addresses or CIDR ranges (got "${entry}")`,
      );
    }
  }
  if (entries.length === 0) {
    throw new ConfigError(
      'MOHAR_TRUST_PROXY',
      'must be 1, 0 or a comma-separated list of proxy addresses or CIDR ranges',
    );
  }
  return entries;
}

function flag(env: Env, name: string): boolean {
  const raw = text(env, name);
  if (raw === undefined || raw === '0' || raw === 'false') return false;
  if (raw === '1' || raw === 'true') return true;
  throw new ConfigError(name, `must be 1 or 0 (got "${raw}")`);
}

function mailFrom(env: Env): string {
  const value = text(env, 'MOHAR_MAIL_FROM') ?? 'Mohar <mohar@localhost>';
  if (!/^([^<>@]*<[^<>@\s]+@[^<>@\s]+>|[^<>@\s]+@[^<>@\s]+)$/.test(value)) {
    throw new ConfigError('MOHAR_MAIL_FROM', `must be an address such as "Mohar <sign@example.com>" (got "${value}")`);
  }
  return value;
}

function secretKey(env: Env): string | undefined {
  const value = env.MOHAR_SECRET_KEY;
  if (value === undefined || value === '') return undefined;
  if (value.length < 32) {
    throw new ConfigError(
      'MOHAR_SECRET_KEY',
      'must be at least 32 characters of random material (e.g. openssl rand -base64 32)',
    );
  }
  return value;
}

const LOOPBACK_HOSTS = ['127.0.0.1', '[::1]', 'localhost'];

/** A URL the desktop may trust with the token bridge: https, or http on loopback; no credentials. */
function desktopUrl(name: string, raw: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be a URL (got "${raw}")`);
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw new ConfigError(name, 'must not contain a user name or password');
  }
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && LOOPBACK_HOSTS.includes(parsed.hostname))) {
    throw new ConfigError(name, `must be https (http only on 127.0.0.1, [::1] or localhost) (got "${raw}")`);
  }
  return parsed;
}

function desktopServerUrl(env: Env): string | undefined {
  const raw = text(env, 'MOHAR_DESKTOP_SERVER_URL');
  return raw === undefined ? undefined : desktopUrl('MOHAR_DESKTOP_SERVER_URL', raw).href.replace(/\/+$/, '');
}

/** Comma-separated origins (scheme, host and port only). */
function desktopTrustedOrigins(env: Env): string[] {
  const raw = text(env, 'MOHAR_DESKTOP_TRUSTED_ORIGINS');
  if (raw === undefined) return [];
  return raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      const parsed = desktopUrl('MOHAR_DESKTOP_TRUSTED_ORIGINS', entry);
      if (parsed.pathname !== '/' || parsed.search !== '' || parsed.hash !== '') {
        throw new ConfigError(
          'MOHAR_DESKTOP_TRUSTED_ORIGINS',
          `must list origins only, such as https://sign.example.com (got "${entry}")`,
        );
      }
      return parsed.origin;
    });
}
