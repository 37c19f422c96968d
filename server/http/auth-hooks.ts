/**
 * Authentication as route hooks. Envelope-API calls carry the account key in X-Api-Key (or, from the office
 * console, a login token); account management carries the api_admin login token as Authorization: Bearer.
 */
import type { FastifyRequest } from 'fastify';
import { MoharError } from '../../common/errors.js';
import { authenticateAccessToken, type UserIdentity } from '../domain/auth/tokens.js';
import type { Context, DataMode } from '../domain/context.js';
import { authenticateApiKey, type KeyIdentity } from '../domain/keys/api-keys.js';
import { ACCOUNT_MANAGERS } from '../domain/users/roles.js';
import { hasOtherActiveAdmin } from '../domain/users/users.js';

declare module 'fastify' {
  interface FastifyRequest {
    apiKey: KeyIdentity | null;
    user: UserIdentity | null;
  }
}

export function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function bearerToken(request: FastifyRequest): string | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(header(request, 'authorization') ?? '');
  return match?.[1];
}

export interface ApiKeyOptions {
  /** Only the account key: the legacy document calls and the sandbox (test keys) are defined by their key. */
  readonly keyOnly?: boolean;
}

/**
 * Envelope-API calls: the account key in X-Api-Key, or (unless keyOnly) a login token of any user of the
 * account as Authorization: Bearer, which is how the office console calls the same API its integrators use.
 */
export function requireApiKey(ctx: Context, options: ApiKeyOptions = {}) {
  return async (request: FastifyRequest): Promise<void> => {
    const token = options.keyOnly || header(request, 'x-api-key') !== undefined ? undefined : bearerToken(request);
    if (token) {
      const user = await authenticateAccessToken(ctx, token);
      await refuseSuspended(ctx, user.accountId);
      request.user = user;
      return;
    }
    const identity = await authenticateApiKey(ctx, header(request, 'x-api-key'));
    // A suspended account's keys stay valid but do nothing (mohar account suspend|resume).
    if (identity.suspended) throw suspendedError();
    request.apiKey = identity;
  };
}

function suspendedError(): MoharError {
  return new MoharError(
    'account_suspended',
    'this account is suspended; ask the operator of this Mohar server to resume it',
  );
}

async function refuseSuspended(ctx: Context, accountId: string): Promise<void> {
  const account = await ctx.db
    .selectFrom('accounts')
    .select('suspended')
    .where('id', '=', accountId)
    .executeTakeFirst();
  if (!account || account.suspended) throw suspendedError();
}

export function requireAdminLogin(ctx: Context) {
  return async (request: FastifyRequest): Promise<void> => {
    const token = bearerToken(request);
    if (!token) {
      throw new MoharError(
        'invalid_token',
        'send an admin or api_admin login token as Authorization: Bearer <token> (POST /auth/login/)',
      );
    }
    const user = await authenticateAccessToken(ctx, token);
    if (!ACCOUNT_MANAGERS.includes(user.role)) {
      throw new MoharError(
        'insufficient_role',
        `a ${user.role} login cannot manage keys, webhooks or account settings; ask an admin of the account`,
      );
    }
    request.user = user;
  };
}

/** Any active user's own business (their password): the login token of any role. */
export function requireUserLogin(ctx: Context) {
  return async (request: FastifyRequest): Promise<void> => {
    const token = bearerToken(request);
    if (!token) throw new MoharError('invalid_token', 'send your login token as Authorization: Bearer <token>');
    request.user = await authenticateAccessToken(ctx, token);
  };
}

/** The raw Bearer token of the request (a password change keeps the session it came from). */
export function bearerOf(request: FastifyRequest): string | undefined {
  return bearerToken(request);
}

/**
 * Users and the audit log: admins only. The api_admin login (the only login of accounts made before users
 * existed) may too while the account has no active admin, so it can invite the first one (docs/decisions.md).
 */
export function requireUserAdmin(ctx: Context) {
  const loggedIn = requireUserLogin(ctx);
  return async (request: FastifyRequest): Promise<void> => {
    await loggedIn(request);
    const user = request.user!;
    if (user.role === 'admin') return;
    if (user.role === 'api_admin' && !(await hasOtherActiveAdmin(ctx, user.accountId, null))) return;
    throw new MoharError(
      'insufficient_role',
      `only an admin of the account manages its users and reads its audit log (this login is ${user.role})`,
    );
  };
}

/** Either credential: a login token when Authorization is present, else the API key. */
export function requireKeyOrLogin(ctx: Context) {
  const byLogin = requireAdminLogin(ctx);
  const byKey = requireApiKey(ctx);
  return (request: FastifyRequest): Promise<void> =>
    header(request, 'authorization') ? byLogin(request) : byKey(request);
}

/** The caller's data mode: a qsk_test_ key is test; a live key and every login (the console) are live. */
export function modeOf(request: FastifyRequest): DataMode {
  return request.apiKey?.mode ?? 'live';
}

/**
 * The Context for a domain operation on behalf of this caller: it carries the caller's mode, so loads by id
 * (envelopes/find-envelope.ts) and lists see only the caller's mode and what it creates gets that mode
 * (issue 16: test keys see only test data, live keys only live data).
 */
export function forCaller(ctx: Context, request: FastifyRequest): Context {
  return { ...ctx, mode: modeOf(request) };
}

/** The account the authenticated caller acts for. */
export function accountOf(request: FastifyRequest): string {
  const accountId = request.apiKey?.accountId ?? request.user?.accountId;
  if (!accountId) throw new MoharError('invalid_api_key', 'not authenticated');
  return accountId;
}
