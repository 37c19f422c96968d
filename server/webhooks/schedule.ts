/**
 * When a failed webhook delivery is tried again: the published schedule (common/webhook-retries.ts) with a jitter
 * factor from 0.8 to 1.2, so deliveries that failed together do not come back together.
 */
import { RETRY_DELAYS_SECONDS } from '../../common/webhook-retries.js';

export const JITTER = 0.2;

/** Milliseconds to wait after failed attempt `attempt` (1-based). `random` returns [0, 1). */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number {
  const index = Math.min(Math.max(attempt, 1), RETRY_DELAYS_SECONDS.length) - 1;
  const factor = 1 - JITTER + 2 * JITTER * random();
  return Math.round(RETRY_DELAYS_SECONDS[index]! * 1000 * factor);
}
