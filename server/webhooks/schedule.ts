/**
 * Retry schedule of webhook deliveries: 12 attempts over about 3 days. After failed attempt n the
 * delivery waits RETRY_DELAYS_SECONDS[n - 1], times a jitter factor from 0.8 to 1.2 (so deliveries that
 * failed together do not come back together):
 *
 *   after attempt  1     2     3     4      5    6    7    8    9     10    11
 *   wait (±20 %)   10 s  1 m   5 m   30 m   1 h  2 h  4 h  8 h  12 h  18 h  24 h
 *
 * The waits add up to 69 h 36 min (±20 %): the 12th attempt comes about 2.9 days after the first. If it
 * fails too, the delivery is dead: kept, listed, and redeliverable by hand.
 */
export const MAX_ATTEMPTS = 12;
export const RETRY_DELAYS_SECONDS: readonly number[] = [
  10, 60, 300, 1800, 3600, 7200, 14_400, 28_800, 43_200, 64_800, 86_400,
];
export const JITTER = 0.2;

/** Milliseconds to wait after failed attempt `attempt` (1-based). `random` returns [0, 1). */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number {
  const index = Math.min(Math.max(attempt, 1), RETRY_DELAYS_SECONDS.length) - 1;
  const factor = 1 - JITTER + 2 * JITTER * random();
  return Math.round(RETRY_DELAYS_SECONDS[index]! * 1000 * factor);
}
