/**
 * The office console's login: the same users, lockout and tokens as POST /auth/login/, but the refresh token
 * travels only in an HttpOnly cookie and the access token only in the page's memory. Script on the page can
 * never read the long-lived credential, and nothing sits in localStorage for a stolen script to take.
 */
import { MoharError } from '../../../common/errors.js';
import type { Context } from '../context.js';
import { login } from './login.js';
import { authenticateAccessToken, logout, refreshTokens, REFRESH_TOKEN_SECONDS, type TokenPair } from './tokens.js';

export interface ConsoleUser {
  readonly email: string;
  readonly role: string;
  readonly account_id: string;
  readonly account_name: string;
}

export interface ConsoleSession {
  /** The access token for Authorization: Bearer, kept in memory by the console. */
  readonly access_token: string;
  readonly expires_in: number;
  readonly user: ConsoleUser;
  /** Goes into the HttpOnly cookie, never into the response body. */
  readonly refreshToken: string;
  readonly refreshMaxAgeSeconds: number;
}

async function describeUser(ctx: Context, accessToken: string): Promise<ConsoleUser> {
  const identity = await authenticateAccessToken(ctx, accessToken);
  const account = await ctx.db
    .selectFrom('accounts')
    .select('name')
    .where('id', '=', identity.accountId)
    .executeTakeFirstOrThrow();
  return { email: identity.email, role: identity.role, account_id: identity.accountId, account_name: account.name };
}

async function toSession(ctx: Context, pair: TokenPair): Promise<ConsoleSession> {
  return {
    access_token: pair.access_token,
    expires_in: pair.expires_in,
    user: await describeUser(ctx, pair.access_token),
    refreshToken: pair.refresh_token,
    refreshMaxAgeSeconds: REFRESH_TOKEN_SECONDS,
  };
}

export async function startConsoleSession(
  ctx: Context,
  email: string,
  password: string,
  address: string | null = null,
): Promise<ConsoleSession> {
  return toSession(ctx, await login(ctx, email, password, address));
}

/** A page load (or an expired access token) trades the cookie for a new pair; the old cookie stops working. */
export async function resumeConsoleSession(ctx: Context, refreshToken: string | undefined): Promise<ConsoleSession> {
  if (!refreshToken) throw new MoharError('session_missing', 'not logged in: no console session cookie');
  return toSession(ctx, await refreshTokens(ctx, refreshToken));
}

/** Logout revokes the refresh token and every access token it minted; an unknown cookie is already logged out. */
export async function endConsoleSession(ctx: Context, refreshToken: string | undefined): Promise<void> {
  if (!refreshToken) return;
  try {
    await logout(ctx, refreshToken);
  } catch (error) {
    if (!(error instanceof MoharError && error.code === 'invalid_token')) throw error;
  }
}
