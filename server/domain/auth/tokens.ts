/**
 * Login tokens: opaque random strings; only their SHA-256 is stored, so a database leak does not
 * leak sessions, and every server instance can check them. Access tokens are short-lived; refresh
 * tokens rotate on use and are revoked by logout.
 */
import { createHash, randomBytes } from 'node:crypto';
import { MoharError } from '../../../common/errors.js';
import { iso, type Context } from '../context.js';

export const ACCESS_TOKEN_SECONDS = 15 * 60;
export const REFRESH_TOKEN_SECONDS = 30 * 24 * 3600;

export interface TokenPair {
  access_token: string;
  refresh_token: string;
  token_type: 'Bearer';
  expires_in: number;
}

export interface UserIdentity {
  readonly userId: string;
  readonly accountId: string;
  readonly role: string;
  readonly email: string;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export async function issueTokenPair(ctx: Context, userId: string): Promise<TokenPair> {
  const now = ctx.now();
  const access = `mat_${randomBytes(32).toString('base64url')}`;
  const refresh = `mrt_${randomBytes(32).toString('base64url')}`;
  const refreshHash = hashToken(refresh);
  await ctx.db
    .insertInto('auth_tokens')
    .values([
      { token_hash: refreshHash, user_id: userId, kind: 'refresh', refresh_hash: null, expires_at: iso(new Date(now.getTime() + REFRESH_TOKEN_SECONDS * 1000)), revoked_at: null, created_at: iso(now) },
      { token_hash: hashToken(access), user_id: userId, kind: 'access', refresh_hash: refreshHash, expires_at: iso(new Date(now.getTime() + ACCESS_TOKEN_SECONDS * 1000)), revoked_at: null, created_at: iso(now) },
    ])
    .execute();
  return { access_token: access, refresh_token: refresh, token_type: 'Bearer', expires_in: ACCESS_TOKEN_SECONDS };
}

async function liveToken(ctx: Context, token: string, kind: 'access' | 'refresh') {
  return ctx.db
    .selectFrom('auth_tokens')
    .innerJoin('users', 'users.id', 'auth_tokens.user_id')
    .select(['auth_tokens.token_hash', 'users.id as user_id', 'users.account_id', 'users.role', 'users.email'])
    .where('auth_tokens.token_hash', '=', hashToken(token))
    .where('auth_tokens.kind', '=', kind)
    .where('auth_tokens.revoked_at', 'is', null)
    .where('auth_tokens.expires_at', '>', iso(ctx.now()))
    .executeTakeFirst();
}

export async function authenticateAccessToken(ctx: Context, token: string): Promise<UserIdentity> {
  const row = await liveToken(ctx, token, 'access');
  if (!row) throw new MoharError('invalid_token', 'the login token is missing, invalid or expired; log in or refresh');
  return { userId: row.user_id, accountId: row.account_id, role: row.role, email: row.email };
}

/** Exchanges a refresh token for a new pair; the old refresh token and its access tokens stop working. */
export async function refreshTokens(ctx: Context, refreshToken: string): Promise<TokenPair> {
  const row = await liveToken(ctx, refreshToken, 'refresh');
  if (!row) throw new MoharError('invalid_token', 'the refresh token is invalid, expired or was revoked; log in again');
  const revoked = await revokeFamily(ctx, row.token_hash);
  if (revoked === 0) throw new MoharError('invalid_token', 'the refresh token was already used');
  return issueTokenPair(ctx, row.user_id);
}

/** Revokes a refresh token and every access token it minted. Returns how many refresh tokens were live. */
async function revokeFamily(ctx: Context, refreshHash: string): Promise<number> {
  const at = iso(ctx.now());
  const result = await ctx.db
    .updateTable('auth_tokens')
    .set({ revoked_at: at })
    .where('token_hash', '=', refreshHash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  await ctx.db.updateTable('auth_tokens').set({ revoked_at: at }).where('refresh_hash', '=', refreshHash).where('revoked_at', 'is', null).execute();
  return Number(result.numUpdatedRows);
}

export async function logout(ctx: Context, refreshToken: string): Promise<void> {
  const row = await ctx.db.selectFrom('auth_tokens').select('token_hash').where('token_hash', '=', hashToken(refreshToken)).where('kind', '=', 'refresh').executeTakeFirst();
  if (!row) throw new MoharError('invalid_token', 'unknown refresh token');
  await revokeFamily(ctx, row.token_hash);
}
