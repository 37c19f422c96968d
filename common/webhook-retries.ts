/**
 * The published retry schedule of webhook deliveries (docs/webhooks.md): 12 attempts over about 3 days. After
 * failed attempt n the delivery waits RETRY_DELAYS_SECONDS[n - 1], times a jitter factor from 0.8 to 1.2
 * (server/webhooks/schedule.ts):
 *
 *   after attempt  1     2     3     4      5    6    7    8    9     10    11
 *   wait (±20 %)   10 s  1 m   5 m   30 m   1 h  2 h  4 h  8 h  12 h  18 h  24 h
 *
 * The waits add up to 69 h 36 min (±20 %): the 12th attempt comes about 2.9 days after the first. If it
 * fails too, the delivery is dead: kept, listed, and redeliverable by hand. Shared because the delivery worker
 * keeps it and the API's description states it.
 */
export const MAX_ATTEMPTS = 12;
export const RETRY_DELAYS_SECONDS: readonly number[] = [
  10, 60, 300, 1800, 3600, 7200, 14_400, 28_800, 43_200, 64_800, 86_400,
];
