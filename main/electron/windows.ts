/**
 * Windows that show Mohar server pages: context isolation, sandbox, no Node, no webviews, the bridge
 * preload, and navigation kept on trusted origins (other https pages, e.g. a caller's return_url, open in
 * the user's browser; anything else is refused). The session grants no permission (camera, notifications...).
 */
import { BrowserWindow, shell, type Session, type WebContents } from 'electron';
import { navigationDecision } from './trust.js';

export interface MoharWindowOptions {
  readonly preload: string;
  readonly origins: readonly string[];
}

export function hardenSession(session: Session): void {
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
}

function guard(contents: WebContents, options: MoharWindowOptions): void {
  const decide = (event: { preventDefault(): void }, url: string): void => {
    const decision = navigationDecision(url, options.origins);
    if (decision === 'allow') return;
    event.preventDefault();
    if (decision === 'external') void shell.openExternal(url);
  };
  contents.on('will-navigate', (event) => decide(event, event.url));
  contents.on('will-redirect', (event) => decide(event, event.url));
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    const decision = navigationDecision(url, options.origins);
    if (decision === 'allow') openMoharWindow(url, options);
    else if (decision === 'external') void shell.openExternal(url);
    return { action: 'deny' };
  });
}

export function openMoharWindow(url: string, options: MoharWindowOptions): BrowserWindow {
  const win = new BrowserWindow({
    width: 1200,
    height: 900,
    show: false,
    autoHideMenuBar: true,
    title: 'Mohar',
    webPreferences: {
      preload: options.preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      navigateOnDragDrop: false,
    },
  });
  guard(win.webContents, options);
  win.once('ready-to-show', () => win.show());
  void win.loadURL(url);
  return win;
}
