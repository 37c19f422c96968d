/**
 * Login tokens: opaque random strings; only their SHA-256 is stored, so a database leak does not
 * leak sessions, and every server instance can check them. Access tokens are short-lived; refresh
 * tokens rotate on use and are revoked by logout.
 */
import { createHash, randomBytes } from 'node:crypto';
import { MoharError } from '../../../common/errors.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';

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

/**
 * Mints an access and a refresh token. `family` is the login they descend from: a fresh login starts its own
 * (the first refresh token's hash), a rotation passes the family on (see refreshTokens).
 */
export async function issueTokenPair(
  ctx: Context,
  userId: string,
  family?: string,
  db: Kysely<Database> = ctx.db,
): Promise<TokenPair> {
  const now = ctx.now();
  const access = `mat_${randomBytes(32).toString('base64url')}`;
  const refresh = `mrt_${randomBytes(32).toString('base64url')}`;
  const refreshHash = hashToken(refresh);
  const login = family ?? refreshHash;
  await db
    .insertInto('auth_tokens')
    .values([
      {
        token_hash: refreshHash,
        user_id: userId,
        kind: 'refresh',
        refresh_hash: null,
        family: login,
        expires_at: iso(new Date(now.getTime() + REFRESH_TOKEN_SECONDS * 1000)),
        revoked_at: null,
        created_at: iso(now),
      },
      {
        token_hash: hashToken(access),
        user_id: userId,
        kind: 'access',
        refresh_hash: refreshHash,
        family: login,
        expires_at: iso(new Date(now.getTime() + ACCESS_TOKEN_SECONDS * 1000)),
        revoked_at: null,
        created_at: iso(now),
      },
    ])
    .execute();
  return { access_token: access, refresh_token: refresh, token_type: 'Bearer', expires_in: ACCESS_TOKEN_SECONDS };
}

function suspendedError(): MoharError {
  return new MoharError(
    'account_suspended',
    'this account is suspended; ask the operator of this Mohar server to resume it',
  );
}

/** A token row with its user and account, whatever its state (the callers judge revoked and expired). */
function tokenRow(ctx: Context, token: string, kind: 'access' | 'refresh') {
  return ctx.db
    .selectFrom('auth_tokens')
    .innerJoin('users', 'users.id', 'auth_tokens.user_id')
    .innerJoin('accounts', 'accounts.id', 'users.account_id')
    .select([
      'auth_tokens.token_hash',
      'auth_tokens.family',
      'auth_tokens.revoked_at',
      'auth_tokens.expires_at',
      'users.id as user_id',
      'users.account_id',
      'users.role',
      'users.email',
      'accounts.suspended',
    ])
    .where('auth_tokens.token_hash', '=', hashToken(token))
    .where('auth_tokens.kind', '=', kind)
    .executeTakeFirst();
}

/** The user behind a live access token. A suspended account's logins do nothing (403 account_suspended). */
export async function authenticateAccessToken(ctx: Context, token: string): Promise<UserIdentity> {
  const row = await tokenRow(ctx, token, 'access');
  if (!row || row.revoked_at !== null || row.expires_at <= iso(ctx.now())) {
    throw new MoharError('invalid_token', 'the login token is missing, invalid or expired; log in or refresh');
  }
  if (row.suspended) throw suspendedError();
  return { userId: row.user_id, accountId: row.account_id, role: row.role, email: row.email };
}

/**
 * Exchanges a refresh token for a new pair of the same family; the old refresh token and its access tokens
 * stop working. A refresh token is used once: presenting one that was already rotated (or losing a race for
 * it) means a second party holds the login, so every token of the family is revoked and the holder logs in
 * again. The rotation and the new pair commit together, so a family revoked by a concurrent replay also
 * takes the pair its winner minted.
 */
export async function refreshTokens(ctx: Context, refreshToken: string): Promise<TokenPair> {
  const row = await tokenRow(ctx, refreshToken, 'refresh');
  if (!row || row.expires_at <= iso(ctx.now())) {
    throw new MoharError('invalid_token', 'the refresh token is invalid, expired or was revoked; log in again');
  }
  const family = row.family ?? row.token_hash;
  if (row.revoked_at !== null) throw await reused(ctx, family);
  // Checked before the rotation: a refused refresh does not use the token up.
  if (row.suspended) throw suspendedError();
  const pair = await ctx.db.transaction().execute(async (trx) => {
    if ((await revokeRefresh(ctx, trx, row.token_hash)) === 0) return undefined;
    return issueTokenPair(ctx, row.user_id, family, trx);
  });
  if (!pair) throw await reused(ctx, family);
  return pair;
}

async function reused(ctx: Context, family: string): Promise<MoharError> {
  await ctx.db
    .updateTable('auth_tokens')
    .set({ revoked_at: iso(ctx.now()) })
    .where('family', '=', family)
    .where('revoked_at', 'is', null)
    .execute();
  return new MoharError(
    'invalid_token',
    'this refresh token was already used: every token of this login is revoked; log in again',
  );
}

/** Revokes a refresh token and every access token it minted. Returns how many refresh tokens were live. */
async function revokeRefresh(ctx: Context, db: Kysely<Database>, refreshHash: string): Promise<number> {
  const at = iso(ctx.now());
  const result = await db
    .updateTable('auth_tokens')
    .set({ revoked_at: at })
    .where('token_hash', '=', refreshHash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  await db
    .updateTable('auth_tokens')
    .set({ revoked_at: at })
    .where('refresh_hash', '=', refreshHash)
    .where('revoked_at', 'is', null)
    .execute();
  return Number(result.numUpdatedRows);
}

/** Logout ends the login: its refresh token, and every token of its family (the access tokens it minted). */
export async function logout(ctx: Context, refreshToken: string): Promise<void> {
  const row = await ctx.db
    .selectFrom('auth_tokens')
    .select(['token_hash', 'family'])
    .where('token_hash', '=', hashToken(refreshToken))
    .where('kind', '=', 'refresh')
    .executeTakeFirst();
  if (!row) throw new MoharError('invalid_token', 'unknown refresh token');
  await revokeRefresh(ctx, ctx.db, row.token_hash);
  if (row.family !== null) {
    await ctx.db
      .updateTable('auth_tokens')
      .set({ revoked_at: iso(ctx.now()) })
      .where('family', '=', row.family)
      .where('revoked_at', 'is', null)
      .execute();
  }
}
