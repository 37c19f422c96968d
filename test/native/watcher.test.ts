/**
 * The token watcher against real SoftHSM2 behaviour. SoftHSM has no hot-plug: "removing" a token is
 * `softhsm2-util --delete-token` (its slot stays listed but C_GetTokenInfo fails) and "inserting" one is
 * `softhsm2-util --init-token --free` from another process, which SoftHSM 2.6 only shows after
 * C_Finalize + C_Initialize (the watcher's rescan: 'reinitialize').
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { EventEmitter } from 'node:events';
import { createSoftHsm, type SoftHsm } from '../support/softhsm.js';
import { Pkcs11Module, watchTokens, type TokenInfo } from '../../native/index.js';

/** Resolves with the first `event` whose token has `label`; fails after `ms` (and clears its timer). */
function waitForToken(
  emitter: EventEmitter,
  event: 'inserted' | 'removed',
  label: string,
  ms = 5000,
): Promise<TokenInfo> {
  return new Promise((resolve, reject) => {
    const listener = (token: TokenInfo): void => {
      if (token.label !== label) return;
      clearTimeout(timer);
      emitter.off(event, listener);
      resolve(token);
    };
    const timer = setTimeout(() => {
      emitter.off(event, listener);
      reject(new Error(`no '${event}' event for ${label} within ${ms} ms`));
    }, ms);
    emitter.on(event, listener);
  });
}

function activeTimers(): number {
  return process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
}

describe('native: token watcher (SoftHSM2)', () => {
  let hsm: SoftHsm;
  let module: Pkcs11Module;

  before(async () => {
    hsm = createSoftHsm({ keys: [], writeIntermediate: false, tokenLabel: 'Main Token' });
    hsm.initToken('Second Token');
    module = await Pkcs11Module.open(hsm.modulePath);
  });

  after(async () => {
    await module?.close();
    hsm?.cleanup();
  });

  test('reports the tokens present at start, then the removal of one; stop() leaves no timer behind', async () => {
    const timersBefore = activeTimers();
    const events: string[] = [];
    const watcher = watchTokens(module, { intervalMs: 20 });
    watcher.on('inserted', (t) => events.push(`inserted ${t.label}`));
    watcher.on('removed', (t) => events.push(`removed ${t.label}`));
    await watcher.ready;
    // The blank token SoftHSM keeps in its free slot is not reported (includeUninitialized: false).
    assert.deepEqual(events.sort(), ['inserted Main Token', 'inserted Second Token']);
    assert.deepEqual(
      watcher
        .tokens()
        .map((t) => t.label)
        .sort(),
      ['Main Token', 'Second Token'],
    );

    const removed = waitForToken(watcher, 'removed', 'Second Token');
    hsm.deleteToken('Second Token');
    const token = await removed;
    assert.equal(token.model, 'SoftHSM v2');
    assert.deepEqual(
      watcher.tokens().map((t) => t.label),
      ['Main Token'],
    );
    // The slot is still listed by SoftHSM, but the token is gone for every operation.
    await assert.rejects(module.listCertificates({ label: 'Second Token' }), { code: 'token_not_present' });

    await watcher.stop();
    await watcher.stop(); // idempotent
    const count = events.length;
    assert.equal(activeTimers(), timersBefore, 'no timer left running after stop()');
    await new Promise((r) => setTimeout(r, 60));
    assert.equal(events.length, count, 'no events after stop()');
  });

  test('a token made by another process: invisible to plain polling on SoftHSM, noticed with rescan: reinitialize', async () => {
    const plain = watchTokens(module, { intervalMs: 20, emitInitial: false });
    const seen: string[] = [];
    plain.on('inserted', (t) => seen.push(t.label));
    await plain.ready;
    hsm.initToken('Third Token');
    for (let i = 0; i < 3; i++) await plain.pollNow();
    assert.deepEqual(seen, [], 'SoftHSM 2.6 builds its slot list in C_Initialize');
    await plain.stop();

    const timersBefore = activeTimers();
    const rescan = watchTokens(module, { intervalMs: 20, rescan: 'reinitialize', emitInitial: false });
    const errors: unknown[] = [];
    rescan.on('error', (e) => errors.push(e));
    await rescan.ready;
    // After re-initialisation the first poll sees 'Third Token' (silently: emitInitial false) ...
    assert.deepEqual(
      rescan
        .tokens()
        .map((t) => t.label)
        .sort(),
      ['Main Token', 'Third Token'],
    );

    // ... and a token inserted while it watches is reported.
    const fourth = waitForToken(rescan, 'inserted', 'Fourth Token');
    hsm.initToken('Fourth Token');
    const token = await fourth;
    assert.equal(token.initialized, true);
    assert.ok((await module.listTokens()).some((t) => t.label === 'Fourth Token'));

    const removed = waitForToken(rescan, 'removed', 'Fourth Token');
    hsm.deleteToken('Fourth Token');
    await removed;
    await rescan.stop();
    assert.deepEqual(errors, []);
    assert.equal(activeTimers(), timersBefore);
    assert.deepEqual(
      rescan
        .tokens()
        .map((t) => t.label)
        .sort(),
      ['Main Token', 'Third Token'],
    );
  });
});
