import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LeaseLoop } from '../../../server/jobs/lease-loop.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(condition: () => boolean, what: string): Promise<void> {
  for (const deadline = Date.now() + 5_000; !condition(); await sleep(5)) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
  }
}

describe('lease loop (shared by the job runner and the webhook worker)', () => {
  test('polls at the interval when rounds are not full; stops claiming at beginStop', async () => {
    let rounds = 0;
    const loop = new LeaseLoop({
      pollIntervalMs: 20,
      round: async () => {
        rounds++;
        return false;
      },
      hasRoom: () => true,
    });
    assert.equal(loop.start(), true);
    assert.equal(loop.start(), false, 'a second start does nothing');
    await waitFor(() => rounds >= 3, 'three polls');
    assert.equal(loop.beginStop(), true);
    assert.equal(loop.beginStop(), false, 'already stopping');
    await loop.roundEnded();
    const stoppedAt = rounds;
    await sleep(60);
    assert.equal(rounds, stoppedAt, 'no round after beginStop');
    assert.equal(loop.isStarted, true, 'started until finishStop');
    loop.finishStop();
    assert.equal(loop.isStarted, false);
  });

  test('a full round goes again at once while there is room; a poke during a round is remembered', async () => {
    let rounds = 0;
    let room = true;
    let release: (() => void) | undefined;
    const loop = new LeaseLoop({
      pollIntervalMs: 60_000,
      round: async () => {
        rounds++;
        if (rounds === 3) {
          await new Promise<void>((resolve) => {
            release = resolve;
          });
        }
        return rounds < 3;
      },
      hasRoom: () => room,
    });
    loop.start();
    await waitFor(() => release !== undefined, 'two full rounds, then the third (still running)');
    assert.equal(rounds, 3);
    loop.poke();
    release!();
    await waitFor(() => rounds === 4, 'the poke during round 3 to start round 4 at once (the poll is a minute away)');
    room = false;
    loop.poke();
    await waitFor(() => rounds === 5, 'a poke to start a round even without a full batch');
    loop.beginStop();
    await loop.roundEnded();
    loop.finishStop();
    loop.poke();
    await sleep(20);
    assert.equal(rounds, 5, 'a poke after stop does nothing');
  });
});
