/**
 * The console's one way to the server. It calls the same envelope API integrators use ({api_base}), with the
 * user's login token as Authorization: Bearer instead of an API key. The access token lives only in this
 * module's memory; the refresh token is an HttpOnly cookie the page cannot read. An expired access token is
 * renewed once, transparently; if that fails the session has ended and the app shows the login again.
 */
import { ApiError, problemOf } from '../api';

export { ApiError };
import { API_BASE, LEGACY_BASE } from '../../../common/api-paths';

export { API_BASE, LEGACY_BASE };
const SESSION = `${LEGACY_BASE}/auth/session`;
/** Every console call to the session routes carries it: another site's page cannot (no CORS preflight is granted). */
const CONSOLE_HEADER = { 'x-mohar-console': '1' };

export interface ConsoleUser {
  email: string;
  role: string;
  account_id: string;
  account_name: string;
}

interface SessionAnswer {
  access_token: string;
  expires_in: number;
  user: ConsoleUser;
}

export interface RequestOptions {
  /** A JSON body (sent as application/json, or `contentType` when given). */
  json?: unknown;
  /** A multipart body (uploads). */
  form?: FormData;
  headers?: Record<string, string>;
  contentType?: string;
  signal?: AbortSignal;
}

let accessToken: string | null = null;
let refreshing: Promise<ConsoleUser | null> | null = null;
const endedListeners = new Set<() => void>();

async function send(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    throw new ApiError(0, 'network_error', error instanceof Error ? error.message : String(error));
  }
}

async function sessionCall(path: string, body?: unknown): Promise<SessionAnswer | null> {
  const headers: Record<string, string> = { ...CONSOLE_HEADER };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await send(`${SESSION}/${path}`, {
    method: 'POST',
    headers,
    body: body === undefined ? null : JSON.stringify(body),
    credentials: 'same-origin',
  });
  if (response.status === 204) return null;
  if (!response.ok) throw await problemOf(response);
  return (await response.json()) as SessionAnswer;
}

function adopt(answer: SessionAnswer): ConsoleUser {
  accessToken = answer.access_token;
  return answer.user;
}

export async function logIn(email: string, password: string): Promise<ConsoleUser> {
  return adopt((await sessionCall('', { email, password }))!);
}

/**
 * Runs `work` holding a lock shared by every tab of this origin (Web Locks, secure contexts), so two tabs never
 * present the same refresh cookie: the server takes a replayed cookie for a stolen one and ends the whole login.
 */
function acrossTabs<T>(work: () => Promise<T>): Promise<T> {
  const locks = typeof navigator === 'undefined' ? undefined : navigator.locks;
  return locks ? (locks.request('mohar-console-refresh', work) as Promise<T>) : work();
}

/**
 * Trades the refresh cookie for a new access token; null when there is no session (no cookie: the server answers
 * 204 at once, which the browser does not log as a failed load). Tabs refresh one at a time (acrossTabs), each
 * with the cookie the previous one's answer set; where Web Locks are missing, a tab that loses the race retries
 * once (the server may have ended the login).
 */
export function resumeSession(): Promise<ConsoleUser | null> {
  refreshing ??= acrossTabs(async () => {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        // 204 (no answer): no session cookie, nobody is logged in; the page shows the login at once.
        const answer = await sessionCall('refresh/');
        if (!answer) break;
        return adopt(answer);
      } catch (error) {
        if (!(error instanceof ApiError && error.code === 'invalid_token')) throw error;
        if (attempt === 0) await new Promise((resolve) => setTimeout(resolve, 300));
      }
    }
    accessToken = null;
    return null;
  }).finally(() => {
    refreshing = null;
  });
  return refreshing;
}

export async function logOut(): Promise<void> {
  accessToken = null;
  await sessionCall('logout/');
}

/** Called when the session ends underneath the app (refresh refused): the app goes back to the login. */
export function onSessionEnded(listener: () => void): () => void {
  endedListeners.add(listener);
  return () => endedListeners.delete(listener);
}

function requestInit(method: string, options: RequestOptions): RequestInit {
  const headers: Record<string, string> = { ...options.headers };
  if (accessToken) headers.authorization = `Bearer ${accessToken}`;
  let body: BodyInit | null = null;
  if (options.form) body = options.form;
  else if (options.json !== undefined) {
    headers['content-type'] = options.contentType ?? 'application/json';
    body = JSON.stringify(options.json);
  }
  return { method, headers, body, credentials: 'same-origin', ...(options.signal ? { signal: options.signal } : {}) };
}

/** A raw call (downloads, HEAD-like checks); throws ApiError on a problem answer. */
export async function call(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
  let response = await send(path, requestInit(method, options));
  if (response.status === 401) {
    const user = await resumeSession().catch(() => null);
    if (!user) {
      endedListeners.forEach((listener) => listener());
      throw await problemOf(response);
    }
    response = await send(path, requestInit(method, options));
  }
  if (!response.ok) throw await problemOf(response);
  return response;
}

/** A JSON call under {api_base} (paths start with /), or a full path when it starts with /backend. */
export async function api<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const url = path.startsWith('/backend') ? path : `${API_BASE}${path}`;
  const response = await call(method, url, options);
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

/** Fetches a protected file and hands it to the browser as a download (links cannot carry the Bearer token). */
export async function download(path: string, fallbackName: string): Promise<void> {
  const response = await call('GET', path.startsWith('/backend') ? path : `${API_BASE}${path}`);
  const disposition = response.headers.get('content-disposition') ?? '';
  const name = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition)?.[1];
  const url = URL.createObjectURL(await response.blob());
  const anchor = document.createElement('a');
  anchor.href = url;
  anchor.download = name ? decodeURIComponent(name) : fallbackName;
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
