/**
 * The bridge's IPC handlers in main, driven through a recording ipcMain with the real desktop signer
 * service behind it (no token module: an empty token list). Untrusted frames never reach the service.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DESKTOP_BRIDGE_CHANNELS, type MoharDesktopBridge, type TokenInfo } from '../../../common/desktop-bridge.js';
import {
  registerBridgeIpc,
  UNTRUSTED_PAGE,
  type BridgeIpcEvent,
  type IpcMainLike,
} from '../../../main/electron/bridge-ipc.js';
import { createDesktopSigner } from '../../../main/signer/index.js';

type Listener = (event: BridgeIpcEvent, ...args: unknown[]) => unknown;

function recordingIpc() {
  const handlers = new Map<string, Listener>();
  const listeners = new Map<string, Listener>();
  const ipc: IpcMainLike = {
    handle: (channel, listener) => void handlers.set(channel, listener),
    on: (channel, listener) => listeners.set(channel, listener),
    removeHandler: (channel) => void handlers.delete(channel),
    removeAllListeners: (channel) => listeners.delete(channel),
  };
  return { ipc, handlers, listeners };
}

function sender(id: number, url: string, isMainFrame = true) {
  const sent: [string, unknown][] = [];
  const onDestroyed: (() => void)[] = [];
  const event: BridgeIpcEvent = {
    senderFrame: { url, parent: isMainFrame ? null : {} },
    sender: {
      id,
      getURL: () => url,
      isDestroyed: () => false,
      send: (channel, ...args) => void sent.push([channel, args[0]]),
      once: (_name, listener) => onDestroyed.push(listener),
    },
  };
  return { event, sent, destroy: () => onDestroyed.forEach((l) => l()) };
}

/** The real service, counting how often each call reached it. */
function countingSigner() {
  const real = createDesktopSigner({ modulePaths: [], pinPrompt: { askPin: async () => null } });
  const calls = { listTokens: 0, signPrepared: 0, watch: 0, unwatch: 0 };
  const watchers: ((tokens: TokenInfo[]) => void)[] = [];
  const signer: MoharDesktopBridge = {
    version: real.version,
    listTokens: () => (calls.listTokens++, real.listTokens()),
    signPrepared: (request) => (calls.signPrepared++, real.signPrepared(request)),
    watchTokens: (listener) => {
      calls.watch++;
      watchers.push(listener);
      return () => void calls.unwatch++;
    },
  };
  return { signer, calls, watchers, close: () => real.close() };
}

const ORIGINS = ['https://mohar.example.com'];

describe('main/electron: bridge IPC handlers', () => {
  test('a trusted top frame reaches the service; iframes and other origins get a coded refusal', async () => {
    const { ipc, handlers } = recordingIpc();
    const service = countingSigner();
    registerBridgeIpc(ipc, service.signer, ORIGINS);
    const list = handlers.get(DESKTOP_BRIDGE_CHANNELS.listTokens)!;
    const sign = handlers.get(DESKTOP_BRIDGE_CHANNELS.signPrepared)!;

    assert.deepEqual(await list(sender(1, 'https://mohar.example.com/sign/abc').event), { ok: true, value: [] });
    assert.equal(service.calls.listTokens, 1);
    const bad = await sign(sender(1, 'https://mohar.example.com/sign/abc').event, { pdfBase64: 'x' });
    assert.equal(
      (bad as { error: { code: string } }).error.code,
      'invalid_request',
      'the service validated the request',
    );
    assert.equal(service.calls.signPrepared, 1);

    for (const [url, main] of [
      ['https://evil.example/', true],
      ['https://mohar.example.com/sign/abc', false],
      ['http://mohar.example.com/', true],
      ['', true],
    ] as const) {
      assert.deepEqual(await list(sender(2, url, main).event), UNTRUSTED_PAGE);
      assert.deepEqual(await sign(sender(2, url, main).event, {}), UNTRUSTED_PAGE);
    }
    assert.deepEqual(
      await list({ ...sender(3, 'https://mohar.example.com/').event, senderFrame: null }),
      UNTRUSTED_PAGE,
    );
    assert.equal(service.calls.listTokens, 1);
    assert.equal(service.calls.signPrepared, 1);
    await service.close();
  });

  test('token watching: one subscription per window, news only to a trusted page, ended by the page, a closed window or unregistering', async () => {
    const { ipc, listeners, handlers } = recordingIpc();
    const service = countingSigner();
    const unregister = registerBridgeIpc(ipc, service.signer, ORIGINS);
    const watch = listeners.get(DESKTOP_BRIDGE_CHANNELS.watchTokens)!;

    const page = sender(7, 'https://mohar.example.com/sign/abc');
    watch(page.event, true);
    watch(page.event, true);
    assert.equal(service.calls.watch, 1);
    watch(sender(8, 'https://evil.example/').event, true);
    assert.equal(service.calls.watch, 1, 'an untrusted page cannot watch');

    const tokens = [{ label: 'T' }] as unknown as TokenInfo[];
    service.watchers[0]!(tokens);
    assert.deepEqual(page.sent, [[DESKTOP_BRIDGE_CHANNELS.tokensChanged, tokens]]);
    watch(page.event, false);
    assert.equal(service.calls.unwatch, 1);

    const other = sender(9, 'https://mohar.example.com/');
    watch(other.event, true);
    other.destroy();
    assert.equal(service.calls.unwatch, 2);

    watch(sender(10, 'https://mohar.example.com/').event, true);
    unregister();
    assert.equal(service.calls.unwatch, 3);
    assert.equal(handlers.size, 0);
    assert.equal(listeners.size, 0);
    await service.close();
  });
});
