/**
 * Retry schedule of failed jobs: after failed attempt n (1, 2, …) the job waits
 * 30 s × 2^(n−1), capped at 1 hour, times a jitter factor from 0.8 to 1.2 (so jobs that failed
 * together do not retry together):
 *
 *   after attempt   1     2    3    4    5     6     7     8+
 *   wait (±20 %)    30 s  1 m  2 m  4 m  8 m   16 m  32 m  1 h
 *
 * The jitter applies after the cap, so the longest single wait is 72 minutes. With the default
 * 8 attempts a job is retried for about 63 minutes (7 waits) before it becomes a dead letter.
 */
export const BASE_DELAY_MS = 30_000;
export const MAX_DELAY_MS = 60 * 60_000;
export const JITTER = 0.2;

/** Milliseconds to wait after failed attempt `attempt` (1-based). `random` returns [0, 1). */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number {
  const exponent = Math.max(0, Math.min(attempt - 1, 30));
  const base = Math.min(BASE_DELAY_MS * 2 ** exponent, MAX_DELAY_MS);
  const factor = 1 - JITTER + 2 * JITTER * random();
  return Math.round(base * factor);
}
