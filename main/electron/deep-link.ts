/**
 * mohar://sign?url=<signing URL> deep links (the page offers them when it runs in a plain browser). Parsed
 * strictly: the mohar: scheme with the host "sign", exactly one url parameter and nothing else; the target
 * must be a signing page (<base>/sign/<token>) on a trusted origin, https (http only on loopback), without
 * credentials or fragment. Anything else is refused with a reason. Pure; unit-tested.
 */
import { isTrustedUrl, trustableOrigin } from './trust.js';

export type DeepLinkResult = { ok: true; signingUrl: string } | { ok: false; reason: string };

const MAX_LENGTH = 4096;
/** Signing tokens are base64url (32 random bytes today); the base path before /sign/ may be a proxy prefix. */
const SIGNING_PATH = /^(?:\/[A-Za-z0-9._~%-]+)*\/sign\/[A-Za-z0-9_-]{16,256}\/?$/;

function refuse(reason: string): DeepLinkResult {
  return { ok: false, reason };
}

export function parseDeepLink(raw: string, origins: readonly string[]): DeepLinkResult {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > MAX_LENGTH) return refuse('not a Mohar link');
  let link: URL;
  try {
    link = new URL(raw);
  } catch {
    return refuse('not a Mohar link');
  }
  if (link.protocol !== 'mohar:') return refuse('not a mohar: link');
  if (link.host.toLowerCase() !== 'sign' || (link.pathname !== '' && link.pathname !== '/')) {
    return refuse('unknown Mohar link (expected mohar://sign?url=…)');
  }
  if (link.username !== '' || link.password !== '' || link.hash !== '') {
    return refuse('unexpected parts in the Mohar link');
  }
  const keys = [...link.searchParams.keys()];
  if (keys.length !== 1 || keys[0] !== 'url') return refuse('the Mohar link must carry exactly one url parameter');

  const value = link.searchParams.get('url')!;
  let target: URL;
  try {
    target = new URL(value);
  } catch {
    return refuse('the signing URL is not a URL');
  }
  if (trustableOrigin(value) === null) return refuse('the signing URL must be https');
  if (target.hash !== '') return refuse('the signing URL must not carry a fragment');
  if (!isTrustedUrl(value, origins)) return refuse(`${target.origin} is not a Mohar server this app trusts`);
  if (!SIGNING_PATH.test(target.pathname)) return refuse('the URL is not a Mohar signing page');
  return { ok: true, signingUrl: target.href };
}

/** The first mohar: argument of a command line (Windows and Linux pass deep links as arguments). */
export function deepLinkInArgv(argv: readonly string[]): string | undefined {
  return argv.find((arg) => /^mohar:/i.test(arg));
}
