/**
 * A finger stroke through the DevTools protocol, timed like a real hand: one sample every 16 ms (a 60 Hz
 * digitizer), then the finger rests on the last point before it lifts.
 *
 * Why the rest matters: CDP touch events sent back to back, without timestamps, look to Chromium's gesture
 * detector like a finger lifted while still moving fast, so the lift starts a fling. A tap while a fling runs
 * only stops the fling: Chromium (156 and later) then produces no click, so the next button never works.
 * A person drawing a signature slows down and stops before lifting; explicit timestamps with a resting sample
 * make that deterministic on fast and slow machines alike.
 *
 * The stroke's timestamps run ahead of the wall clock (21 samples and the rest are ~0.5 s of hand time, sent in
 * a few milliseconds), so the gesture returns only once the clock has passed its last event: a tap that follows
 * (Playwright stamps it "now") must not look to Chromium as if it happened before the finger lifted.
 */
import type { CDPSession } from 'playwright-core';

export interface Point {
  readonly x: number;
  readonly y: number;
}

const SAMPLE_MS = 16;
const REST_MS = 150;

export async function drawWithFinger(cdp: CDPSession, points: readonly Point[]): Promise<void> {
  if (points.length === 0) throw new Error('a stroke needs at least one point');
  const start = Date.now() / 1000;
  const at = (ms: number) => start + ms / 1000;
  const touch = (type: 'touchStart' | 'touchMove' | 'touchEnd', ms: number, point?: Point) =>
    cdp.send('Input.dispatchTouchEvent', {
      type,
      touchPoints: point ? [{ x: point.x, y: point.y }] : [],
      timestamp: at(ms),
    });

  await touch('touchStart', 0, points[0]);
  for (let i = 1; i < points.length; i++) await touch('touchMove', i * SAMPLE_MS, points[i]);
  const last = points[points.length - 1]!;
  const restedAt = (points.length - 1) * SAMPLE_MS + REST_MS;
  await touch('touchMove', restedAt, last);
  const liftedAt = restedAt + SAMPLE_MS;
  await touch('touchEnd', liftedAt);
  const untilLifted = at(liftedAt + SAMPLE_MS) * 1000 - Date.now();
  if (untilLifted > 0) await new Promise((resolve) => setTimeout(resolve, untilLifted));
}
