/** The batch page's IPC handlers: untrusted frames and malformed requests never reach the batch or the doctor. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DESKTOP_BATCH_CHANNELS, type BatchReport } from '../../../common/desktop-batch.js';
import type { DoctorReport } from '../../../common/desktop-doctor.js';
import { registerBatchIpc, type BatchServices } from '../../../main/electron/batch-ipc.js';
import { UNTRUSTED_PAGE, type BridgeIpcEvent, type IpcMainLike } from '../../../main/electron/bridge-ipc.js';

type Handler = (event: BridgeIpcEvent, ...args: unknown[]) => unknown;
const ORIGIN = 'https://mohar.example';

function event(url: string, isMainFrame = true): BridgeIpcEvent {
  return {
    senderFrame: { url, parent: isMainFrame ? null : {} },
    sender: { id: 1, getURL: () => url, isDestroyed: () => false, send: () => undefined, once: () => undefined },
  };
}

function setup() {
  const handlers = new Map<string, Handler>();
  const ipc: IpcMainLike = {
    handle: (channel, listener) => void handlers.set(channel, listener),
    on: () => undefined,
    removeHandler: (channel) => void handlers.delete(channel),
    removeAllListeners: () => undefined,
  };
  const calls: string[] = [];
  const report: BatchReport = { items: [], signed: 0, failed: 0, skipped: 0, stoppedBy: null };
  const services: BatchServices = {
    batch: {
      refresh: async () => (calls.push('refresh'), []),
      sign: async (request) => (calls.push(`sign ${request.slotId}/${request.certificateId}`), report),
      clear: () => void calls.push('clear'),
      items: () => [],
    },
    doctor: async (): Promise<DoctorReport> => (calls.push('doctor'), { findings: [], worst: 'info', checkedAt: '' }),
  };
  const unregister = registerBatchIpc(ipc, services, [ORIGIN]);
  return { handlers, calls, unregister };
}

test('untrusted pages and iframes are refused before the batch or the doctor is touched', async () => {
  const { handlers, calls } = setup();
  for (const channel of Object.values(DESKTOP_BATCH_CHANNELS)) {
    assert.deepEqual(await handlers.get(channel)!(event('https://evil.example/sign/x')), UNTRUSTED_PAGE);
    assert.deepEqual(await handlers.get(channel)!(event(`${ORIGIN}/`, false)), UNTRUSTED_PAGE);
  }
  assert.deepEqual(calls, []);
});

test('a trusted page lists, signs with a well-formed request only, clears and asks the doctor', async () => {
  const { handlers, calls, unregister } = setup();
  const trusted = event(`${ORIGIN}/`);
  assert.deepEqual(await handlers.get(DESKTOP_BATCH_CHANNELS.list)!(trusted), { ok: true, value: [] });
  const bad = (await handlers.get(DESKTOP_BATCH_CHANNELS.sign)!(trusted, { slotId: 5 })) as { ok: boolean };
  assert.equal(bad.ok, false);
  const good = (await handlers.get(DESKTOP_BATCH_CHANNELS.sign)!(trusted, { slotId: 's', certificateId: '01' })) as {
    ok: boolean;
  };
  assert.equal(good.ok, true);
  await handlers.get(DESKTOP_BATCH_CHANNELS.clear)!(trusted);
  await handlers.get(DESKTOP_BATCH_CHANNELS.doctor)!(trusted);
  assert.deepEqual(calls, ['refresh', 'sign s/01', 'clear', 'doctor']);
  unregister();
  assert.equal(handlers.size, 0);
});
