/**
 * Which web content Mohar Desktop trusts with the token bridge: pages of the Mohar server it runs or
 * points at, plus origins the user configured (MOHAR_DESKTOP_TRUSTED_ORIGINS). Pure functions, no
 * Electron, so they are unit-tested directly. The origin is the security boundary (same-origin policy);
 * https is required except for loopback (the embedded server on 127.0.0.1).
 */

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname.toLowerCase());
}

/** The origin of an http(s) URL that may be trusted (https, or http on loopback), else null. */
export function trustableOrigin(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.username !== '' || url.password !== '') return null;
  if (url.protocol === 'https:') return url.origin;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return url.origin;
  return null;
}

/** The server's origin first, then the extra ones; each once. Throws when the server URL cannot be trusted. */
export function trustedOrigins(serverUrl: string, extra: readonly string[] = []): string[] {
  const server = trustableOrigin(serverUrl);
  if (server === null) throw new Error(`the Mohar server URL must be https (or http on 127.0.0.1): ${serverUrl}`);
  const out = [server];
  for (const raw of extra) {
    const origin = trustableOrigin(raw);
    if (origin !== null && !out.includes(origin)) out.push(origin);
  }
  return out;
}

export function isTrustedUrl(raw: string, origins: readonly string[]): boolean {
  const origin = trustableOrigin(raw);
  return origin !== null && origins.includes(origin);
}

/** The frame an IPC message came from, as Electron describes it (event.senderFrame). */
export interface SenderFrame {
  readonly url: string;
  /** True for the top-level document of its window (iframes never get the bridge). */
  readonly isMainFrame: boolean;
}

/** Only the top frame of a page on a trusted origin may call the bridge. */
export function isTrustedSender(frame: SenderFrame | null | undefined, origins: readonly string[]): boolean {
  return frame !== null && frame !== undefined && frame.isMainFrame && isTrustedUrl(frame.url, origins);
}

/** Where a navigation of a Mohar window may go: stay (trusted), hand to the browser (other https), or nowhere. */
export function navigationDecision(raw: string, origins: readonly string[]): 'allow' | 'external' | 'deny' {
  if (isTrustedUrl(raw, origins)) return 'allow';
  try {
    const url = new URL(raw);
    if (url.protocol === 'https:' && url.username === '' && url.password === '') return 'external';
  } catch {
    // not a URL: nowhere
  }
  return 'deny';
}
