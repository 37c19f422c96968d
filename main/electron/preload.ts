/**
 * Preload of every window showing Mohar server pages: defines window.moharDesktop (the bridge contract of
 * common/desktop-bridge.ts) through contextBridge. Runs sandboxed with context isolation, so it holds no
 * Node access and only plain data crosses: requests go to main by IPC, results come back as BridgeResults.
 * Main checks the page's origin on every call; this file trusts nothing it receives from the page.
 * Bundled to CommonJS by scripts/build-desktop.mjs (sandboxed preloads cannot load ES modules).
 */
import { contextBridge, ipcRenderer } from 'electron';
import {
  DESKTOP_BRIDGE_CHANNELS,
  DESKTOP_BRIDGE_GLOBAL,
  DESKTOP_BRIDGE_VERSION,
  type MoharDesktopBridge,
  type TokenInfo,
} from '../../common/desktop-bridge.js';
import {
  DESKTOP_BATCH_CHANNELS,
  DESKTOP_BATCH_GLOBAL,
  DESKTOP_BATCH_VERSION,
  type MoharDesktopBatch,
} from '../../common/desktop-batch.js';

type Listener = (tokens: TokenInfo[]) => void;
const listeners = new Set<{ listener: Listener }>();

ipcRenderer.on(DESKTOP_BRIDGE_CHANNELS.tokensChanged, (_event, tokens: TokenInfo[]) => {
  for (const entry of [...listeners]) {
    try {
      entry.listener(tokens);
    } catch {
      // a page listener that throws must not stop the others
    }
  }
});

const bridge: MoharDesktopBridge = {
  version: DESKTOP_BRIDGE_VERSION,
  listTokens: () => ipcRenderer.invoke(DESKTOP_BRIDGE_CHANNELS.listTokens),
  watchTokens(listener) {
    if (typeof listener !== 'function') throw new TypeError('watchTokens needs a listener function');
    const entry = { listener };
    listeners.add(entry);
    if (listeners.size === 1) ipcRenderer.send(DESKTOP_BRIDGE_CHANNELS.watchTokens, true);
    return () => {
      if (!listeners.delete(entry)) return;
      if (listeners.size === 0) ipcRenderer.send(DESKTOP_BRIDGE_CHANNELS.watchTokens, false);
    };
  },
  signPrepared: (request) => ipcRenderer.invoke(DESKTOP_BRIDGE_CHANNELS.signPrepared, request),
};

contextBridge.exposeInMainWorld(DESKTOP_BRIDGE_GLOBAL, bridge);

// The batch page and the token doctor (common/desktop-batch.ts): the same origin checks in main.
const batch: MoharDesktopBatch = {
  version: DESKTOP_BATCH_VERSION,
  list: () => ipcRenderer.invoke(DESKTOP_BATCH_CHANNELS.list),
  sign: (request) => ipcRenderer.invoke(DESKTOP_BATCH_CHANNELS.sign, request),
  clear: () => ipcRenderer.invoke(DESKTOP_BATCH_CHANNELS.clear),
  doctor: () => ipcRenderer.invoke(DESKTOP_BATCH_CHANNELS.doctor),
};

contextBridge.exposeInMainWorld(DESKTOP_BATCH_GLOBAL, batch);
