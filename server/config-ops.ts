/**
 * Operations settings (metrics and shutdown), parsed by parseConfig in config.ts (nothing else reads the
 * environment). Apart from config.ts so that the settings an operator's monitoring needs read in one place.
 */
import { ConfigError } from './config-error.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface MetricsConfig {
  /** MOHAR_METRICS=on: GET /metrics answers (Prometheus text format); off by default. */
  readonly enabled: boolean;
  /** MOHAR_METRICS_TOKEN: the scraper must send `Authorization: Bearer <token>`; unset: no credential asked. */
  readonly token: string | undefined;
  /** MOHAR_METRICS_LISTEN (host:port): /metrics on a listener of its own instead of the main port. */
  readonly listen: { readonly host: string; readonly port: number } | undefined;
}

function text(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function onOff(env: Env, name: string): boolean {
  const raw = text(env, name)?.toLowerCase();
  if (raw === undefined || ['0', 'false', 'off', 'no'].includes(raw)) return false;
  if (['1', 'true', 'on', 'yes'].includes(raw)) return true;
  throw new ConfigError(name, `must be on or off (got "${raw}")`);
}

export function metricsConfig(env: Env): MetricsConfig {
  const enabled = onOff(env, 'MOHAR_METRICS');
  const token = text(env, 'MOHAR_METRICS_TOKEN');
  // A short token is guessable; the error never echoes it (it is a secret).
  if (token !== undefined && token.length < 16) {
    throw new ConfigError('MOHAR_METRICS_TOKEN', 'must be at least 16 characters');
  }
  const listenRaw = text(env, 'MOHAR_METRICS_LISTEN');
  let listen: MetricsConfig['listen'];
  if (listenRaw !== undefined) {
    // host:port, with IPv6 hosts in brackets ([::1]:9464).
    const match = /^(?:\[([0-9a-fA-F:.]+)\]|([\w.-]+)):(\d{1,5})$/.exec(listenRaw);
    const port = match ? Number(match[3]) : NaN;
    if (!match || port > 65535) {
      throw new ConfigError('MOHAR_METRICS_LISTEN', `must be host:port such as 127.0.0.1:9464 (got "${listenRaw}")`);
    }
    listen = { host: match[1] ?? match[2]!, port };
  }
  if (!enabled && (token !== undefined || listen !== undefined)) {
    throw new ConfigError('MOHAR_METRICS', 'must be on when MOHAR_METRICS_TOKEN or MOHAR_METRICS_LISTEN is set');
  }
  return { enabled, token, listen };
}

/** MOHAR_SHUTDOWN_TIMEOUT_MS: how long SIGTERM waits for requests and jobs before forcing the exit. */
export function shutdownTimeoutMs(env: Env): number {
  const raw = text(env, 'MOHAR_SHUTDOWN_TIMEOUT_MS');
  if (raw === undefined) return 30_000;
  const value = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!(value >= 1000 && value <= 600_000)) {
    throw new ConfigError('MOHAR_SHUTDOWN_TIMEOUT_MS', `must be a whole number from 1000 to 600000 (got "${raw}")`);
  }
  return value;
}
