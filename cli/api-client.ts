/** A small JSON client of a running Mohar server's envelope API ({base_url}/backend/api/v1), for CLI commands. */
import { API_BASE } from '../common/api-paths.js';

export interface ApiResponse {
  readonly status: number;
  readonly json: Record<string, unknown>;
  /** The answer is a replay of an earlier call with the same Idempotency-Key. */
  readonly replayed: boolean;
}

export interface ApiClient {
  get(path: string): Promise<ApiResponse>;
  post(path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse>;
}

/** The server could not be reached (connection refused or reset, DNS): worth a retry, unlike an HTTP answer. */
export class UnreachableError extends Error {
  override readonly name = 'UnreachableError';
}

export function apiClient(baseUrl: string, apiKey: string): ApiClient {
  const base = `${baseUrl.replace(/\/+$/, '')}${API_BASE}`;
  const send = async (
    method: string,
    path: string,
    body: unknown,
    headers: Record<string, string>,
  ): Promise<ApiResponse> => {
    let response: Response;
    let text: string;
    try {
      response = await fetch(`${base}${path}`, {
        method,
        headers: {
          'x-api-key': apiKey,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      text = await response.text();
    } catch (error) {
      const cause = (error as Error).cause as Error | undefined;
      throw new UnreachableError(`cannot reach ${base}: ${cause?.message ?? (error as Error).message}`, {
        cause: error,
      });
    }
    let json: Record<string, unknown>;
    try {
      json = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
    } catch {
      json = { detail: text.slice(0, 500) };
    }
    return { status: response.status, json, replayed: response.headers.get('idempotent-replayed') === 'true' };
  };
  return {
    get: (path) => send('GET', path, undefined, {}),
    post: (path, body, headers = {}) => send('POST', path, body, headers),
  };
}
