/**
 * The main-process side of window.moharDesktop: one IPC handler per bridge call, each refusing any frame
 * that is not the top frame of a trusted Mohar page before the signer service is touched. Only plain data
 * goes back (the service returns JSON-shaped BridgeResults). Written against the small part of Electron's
 * ipcMain it uses, so it is unit-tested without Electron.
 */
import {
  DESKTOP_BRIDGE_CHANNELS,
  type BridgeResult,
  type MoharDesktopBridge,
  type TokenInfo,
} from '../../common/desktop-bridge.js';
import { isTrustedSender, isTrustedUrl, type SenderFrame } from './trust.js';

/** What the handlers read of an IPC event (a subset of Electron's IpcMainEvent / IpcMainInvokeEvent). */
export interface BridgeIpcEvent {
  readonly senderFrame: { readonly url: string; readonly parent: unknown } | null;
  readonly sender: {
    readonly id: number;
    getURL(): string;
    isDestroyed(): boolean;
    send(channel: string, ...args: unknown[]): void;
    once(event: 'destroyed', listener: () => void): unknown;
  };
}

export interface IpcMainLike {
  handle(channel: string, listener: (event: BridgeIpcEvent, ...args: unknown[]) => unknown): void;
  on(channel: string, listener: (event: BridgeIpcEvent, ...args: unknown[]) => void): unknown;
  removeHandler(channel: string): void;
  removeAllListeners(channel: string): unknown;
}

export const UNTRUSTED_PAGE: BridgeResult<never> = {
  ok: false,
  error: {
    code: 'invalid_request',
    message: 'This page is not on a Mohar server that Mohar Desktop trusts, so it cannot use the token.',
  },
};

function frameOf(event: BridgeIpcEvent): SenderFrame | null {
  return event.senderFrame ? { url: event.senderFrame.url, isMainFrame: event.senderFrame.parent === null } : null;
}

/** Registers the bridge handlers; returns a function that removes them and ends every token watch. */
export function registerBridgeIpc(
  ipc: IpcMainLike,
  signer: MoharDesktopBridge,
  origins: readonly string[],
): () => void {
  const watches = new Map<number, () => void>();
  const hooked = new Set<number>();
  const unwatch = (id: number): void => {
    watches.get(id)?.();
    watches.delete(id);
  };

  ipc.handle(DESKTOP_BRIDGE_CHANNELS.listTokens, (event) =>
    isTrustedSender(frameOf(event), origins) ? signer.listTokens() : UNTRUSTED_PAGE,
  );

  ipc.handle(DESKTOP_BRIDGE_CHANNELS.signPrepared, (event, request) =>
    isTrustedSender(frameOf(event), origins) ? signer.signPrepared(request as never) : UNTRUSTED_PAGE,
  );

  ipc.on(DESKTOP_BRIDGE_CHANNELS.watchTokens, (event, on) => {
    const { sender } = event;
    if (on !== true) return unwatch(sender.id);
    if (!isTrustedSender(frameOf(event), origins) || watches.has(sender.id)) return;
    const stop = signer.watchTokens((tokens: TokenInfo[]) => {
      // The page may have navigated since it subscribed: only a trusted page hears about tokens.
      if (!sender.isDestroyed() && isTrustedUrl(sender.getURL(), origins)) {
        sender.send(DESKTOP_BRIDGE_CHANNELS.tokensChanged, tokens);
      }
    });
    watches.set(sender.id, stop);
    // The watch belongs to the window (a page that follows in it finds it running); a closed window ends it.
    if (!hooked.has(sender.id)) {
      hooked.add(sender.id);
      sender.once('destroyed', () => {
        hooked.delete(sender.id);
        unwatch(sender.id);
      });
    }
  });

  return () => {
    ipc.removeHandler(DESKTOP_BRIDGE_CHANNELS.listTokens);
    ipc.removeHandler(DESKTOP_BRIDGE_CHANNELS.signPrepared);
    ipc.removeAllListeners(DESKTOP_BRIDGE_CHANNELS.watchTokens);
    for (const id of [...watches.keys()]) unwatch(id);
  };
}
