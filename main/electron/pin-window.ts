/**
 * The PinPrompt of Mohar Desktop: a small modal window of the app itself (local HTML in pin-window/, its
 * own sandboxed preload, no devtools), never web content of the server. The PIN travels from that window
 * to main by IPC, is handed to the signer service for the one C_Login, and is not kept or logged.
 */
import { BrowserWindow, ipcMain, type IpcMainEvent, type IpcMainInvokeEvent } from 'electron';
import { pathToFileURL } from 'node:url';
import type { PinPrompt, PinRequest } from '../signer/index.js';
import { MAX_PIN_LENGTH, PIN_CHANNELS } from './pin-channels.js';

interface Pending {
  readonly request: PinRequest;
  finish(pin: string | null): void;
}

export function createPinWindowPrompt(files: { html: string; preload: string }): PinPrompt & { dispose(): void } {
  const pending = new Map<number, Pending>();
  const htmlUrl = pathToFileURL(files.html).href;
  // Only the PIN window's own page, while it is asking.
  const pendingFor = (event: IpcMainEvent | IpcMainInvokeEvent): Pending | undefined =>
    event.senderFrame?.url === htmlUrl && event.senderFrame.parent === null ? pending.get(event.sender.id) : undefined;

  ipcMain.handle(PIN_CHANNELS.request, (event) => pendingFor(event)?.request ?? null);
  ipcMain.on(PIN_CHANNELS.answer, (event, answer: unknown) => {
    const waiting = pendingFor(event);
    if (!waiting) return;
    const pin = typeof answer === 'object' && answer !== null ? (answer as { pin?: unknown }).pin : undefined;
    waiting.finish(typeof pin === 'string' && pin.length > 0 && pin.length <= MAX_PIN_LENGTH ? pin : null);
  });

  return {
    askPin(request: PinRequest): Promise<string | null> {
      return new Promise((resolve) => {
        const parent = BrowserWindow.getFocusedWindow() ?? undefined;
        const win = new BrowserWindow({
          ...(parent ? { parent, modal: true } : {}),
          width: 480,
          height: 520,
          resizable: false,
          minimizable: false,
          maximizable: false,
          fullscreenable: false,
          autoHideMenuBar: true,
          show: false,
          title: 'Mohar: token PIN',
          webPreferences: {
            preload: files.preload,
            contextIsolation: true,
            sandbox: true,
            nodeIntegration: false,
            devTools: false,
            spellcheck: false,
            webviewTag: false,
          },
        });
        const id = win.webContents.id;
        let done = false;
        const finish = (pin: string | null): void => {
          if (done) return;
          done = true;
          pending.delete(id);
          resolve(pin);
          if (!win.isDestroyed()) win.close();
        };
        pending.set(id, { request, finish });
        win.on('closed', () => finish(null));
        win.webContents.on('will-navigate', (event) => event.preventDefault());
        win.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
        win.once('ready-to-show', () => {
          win.show();
          win.focus();
        });
        win.loadFile(files.html).catch(() => finish(null));
      });
    },
    dispose(): void {
      ipcMain.removeHandler(PIN_CHANNELS.request);
      ipcMain.removeAllListeners(PIN_CHANNELS.answer);
      for (const waiting of [...pending.values()]) waiting.finish(null);
    },
  };
}
