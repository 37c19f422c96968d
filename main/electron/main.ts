/**
 * Mohar Desktop's main process: thin. It reads the settings once (parseConfig), runs the embedded server
 * (server/start.ts, on 127.0.0.1) or points at a hosted one (MOHAR_DESKTOP_SERVER_URL), wires the desktop
 * signer service (main/signer) to the pages through the bridge IPC, and opens mohar://sign?url=… links.
 * Windows: windows.ts; origins: trust.ts; links: deep-link.ts; PIN: pin-window.ts.
 */
import { app, BrowserWindow, dialog, ipcMain, session } from 'electron';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findModules } from '../../native/index.js';
import { ConfigError, parseConfig, type Config } from '../../server/config.js';
import { fetchTransport } from '../../server/net/http-transport.js';
import { dscTrustAnchors } from '../../server/domain/trust/anchors.js';
import { startServer } from '../../server/start.js';
import { createDesktopSigner, runDoctor, serverTime } from '../signer/index.js';
import { registerBatchIpc } from './batch-ipc.js';
import { registerBridgeIpc } from './bridge-ipc.js';
import { deepLinkInArgv, parseDeepLink } from './deep-link.js';
import { createPinWindowPrompt } from './pin-window.js';
import { trustedOrigins } from './trust.js';
import { hardenSession, openMoharWindow } from './windows.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const FILES = {
  preload: join(here, 'preload.cjs'),
  pinHtml: join(here, 'pin-window', 'pin.html'),
  pinPreload: join(here, 'pin-window', 'pin-preload.cjs'),
};

/** Deep links that arrive before the app is ready wait here. */
const early: string[] = [];
let openLink: ((raw: string) => void) | undefined;
let mainWindow: BrowserWindow | undefined;
let shutdown: (() => Promise<void>) | undefined;

function loadConfig(): Config {
  // The embedded server keeps its database in the app's own folder unless MOHAR_DATA_DIR says otherwise.
  return parseConfig({ MOHAR_DATA_DIR: join(app.getPath('userData'), 'server'), ...process.env });
}

function receiveLink(raw: string): void {
  if (openLink) openLink(raw);
  else early.push(raw);
}

async function ready(): Promise<void> {
  const config = loadConfig();
  hardenSession(session.defaultSession);

  let serverUrl = config.desktopServerUrl;
  let extraOrigins = [...config.desktopTrustedOrigins];
  let closeServer = async (): Promise<void> => undefined;
  if (serverUrl === undefined) {
    const server = await startServer(config);
    serverUrl = server.url;
    extraOrigins = [config.baseUrl, ...extraOrigins]; // signing links carry MOHAR_BASE_URL
    closeServer = () => server.close();
    if (server.bootstrap?.generatedPassword) {
      void dialog.showMessageBox({
        type: 'info',
        title: 'Mohar',
        message: 'First start: the administrator account was created.',
        detail: `Login: ${server.bootstrap.email}\nPassword (shown once): ${server.bootstrap.generatedPassword}`,
      });
    }
  }
  const origins = trustedOrigins(serverUrl, extraOrigins);

  const pinPrompt = createPinWindowPrompt({ html: FILES.pinHtml, preload: FILES.pinPreload });
  const signer = createDesktopSigner({
    modulePaths: findModules({ platform: process.platform, extraPaths: [...config.pkcs11Modules] }).map((c) => c.path),
    pinPrompt,
    ...(config.tsaUrl ? { timestamp: { tsaUrl: config.tsaUrl, transport: fetchTransport() } } : {}),
    onError: (error) => console.warn(`mohar: ${error instanceof Error ? error.message : String(error)}`),
  });
  const unregister = registerBridgeIpc(ipcMain, signer, origins);
  const unregisterBatch = registerBatchIpc(
    ipcMain,
    {
      batch: signer.batch,
      doctor: async () =>
        runDoctor({
          namedModules: [...config.pkcs11Modules],
          anchors: dscTrustAnchors(config),
          // The embedded server shares this computer's clock: only a hosted server is a second opinion.
          referenceTime: process.env.MOHAR_DESKTOP_SERVER_URL ? await serverTime(serverUrl) : null,
        }),
    },
    origins,
  );
  const windowOptions = { preload: FILES.preload, origins };

  shutdown = async () => {
    unregister();
    unregisterBatch();
    pinPrompt.dispose();
    await signer.close();
    await closeServer();
  };
  openLink = (raw) => {
    const link = parseDeepLink(raw, origins);
    if (link.ok) {
      // Every link handed over also waits in the batch, so several can be signed with one PIN.
      signer.batch.add([link.signingUrl]);
      openMoharWindow(link.signingUrl, windowOptions);
    } else dialog.showErrorBox('Mohar cannot open this link', link.reason);
  };
  const openMain = (): void => {
    mainWindow = openMoharWindow(`${serverUrl}/`, windowOptions);
    mainWindow.on('closed', () => (mainWindow = undefined));
  };
  app.on('activate', () => BrowserWindow.getAllWindows().length === 0 && openMain());

  if (early.length === 0) openMain();
  for (const raw of early.splice(0)) openLink(raw);
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  // Run as `electron dist/main/electron/main.js` the app must name its script for the OS to call it back.
  if (process.defaultApp && process.argv[1]) {
    app.setAsDefaultProtocolClient('mohar', process.execPath, [resolve(process.argv[1])]);
  } else app.setAsDefaultProtocolClient('mohar');

  const initial = deepLinkInArgv(process.argv);
  if (initial) early.push(initial);
  app.on('open-url', (event, url) => {
    event.preventDefault();
    receiveLink(url);
  });
  app.on('second-instance', (_event, argv) => {
    const link = deepLinkInArgv(argv);
    if (link) receiveLink(link);
    else if (mainWindow) mainWindow.focus();
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  let quitting = false;
  app.on('before-quit', (event) => {
    if (quitting || !shutdown) return;
    quitting = true;
    event.preventDefault();
    void shutdown().finally(() => app.quit());
  });

  app
    .whenReady()
    .then(ready)
    .catch((error: unknown) => {
      const message = error instanceof ConfigError || error instanceof Error ? error.message : String(error);
      dialog.showErrorBox('Mohar could not start', message);
      app.exit(1);
    });
}
