/**
 * Account API keys: `qsk_live_…` / `qsk_test_…`, 43 random url-safe characters after the mode.
 * Only the SHA-256 is stored; the full key is returned once. One active key per mode: generating
 * again rotates, and the old key stops working at once.
 */
import { hash, randomBytes, randomUUID } from 'node:crypto';
import { MoharError } from '../../../common/errors.js';
import { fullDiskCode } from '../storage-full.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';

export type KeyMode = 'live' | 'test';

export interface GeneratedKey {
  api_key: string;
  api_key_prefix: string;
  mode: KeyMode;
  created_at: string;
}

export interface KeyMetadata {
  api_key_prefix: string;
  mode: KeyMode;
  created_at: string;
  last_used_at: string | null;
}

export interface KeyIdentity {
  readonly keyId: string;
  readonly accountId: string;
  readonly mode: KeyMode;
  readonly prefix: string;
  readonly testMode: boolean;
  readonly suspended: boolean;
}

const PREFIX_RANDOM_CHARS = 8;
/** last_used_at is written at most this often per key, to keep a write off every request. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** Every authenticated request hashes its key: the one-shot hash() costs a fraction of a Hash object. */
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

export async function generateApiKey(ctx: Context, accountId: string, mode: KeyMode): Promise<GeneratedKey> {
  const account = await ctx.db
    .selectFrom('accounts')
    .select(['test_mode'])
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  if (mode === 'test' && account.test_mode !== 1) {
    throw new MoharError(
      'test_mode_not_enabled',
      'test keys are only issued to accounts enabled for test mode (mohar admin create --test-mode)',
    );
  }
  const random = randomBytes(32).toString('base64url');
  const apiKey = `qsk_${mode}_${random}`;
  const prefix = `qsk_${mode}_${random.slice(0, PREFIX_RANDOM_CHARS)}`;
  const at = iso(ctx.now());
  await ctx.db.transaction().execute(async (trx) => {
    await trx
      .updateTable('api_keys')
      .set({ revoked_at: at })
      .where('account_id', '=', accountId)
      .where('mode', '=', mode)
      .where('revoked_at', 'is', null)
      .execute();
    await trx
      .insertInto('api_keys')
      .values({
        id: randomUUID(),
        account_id: accountId,
        mode,
        prefix,
        key_hash: hashApiKey(apiKey),
        created_at: at,
        last_used_at: null,
        revoked_at: null,
      })
      .execute();
  });
  forgetAccountKeys(ctx, accountId);
  return { api_key: apiKey, api_key_prefix: prefix, mode, created_at: at };
}

export async function listActiveKeys(ctx: Context, accountId: string): Promise<KeyMetadata[]> {
  const rows = await ctx.db
    .selectFrom('api_keys')
    .select(['prefix', 'mode', 'created_at', 'last_used_at'])
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .orderBy('mode')
    .execute();
  return rows.map((r) => ({
    api_key_prefix: r.prefix,
    mode: r.mode,
    created_at: r.created_at,
    last_used_at: r.last_used_at,
  }));
}

/** Whether last_used_at was written for this key within the resolution (per process). */
const lastUsedWritten = new Map<string, number>();

async function touchLastUsed(ctx: Context, keyId: string, now: Date): Promise<void> {
  const last = lastUsedWritten.get(keyId) ?? 0;
  if (now.getTime() - last < LAST_USED_RESOLUTION_MS) return;
  lastUsedWritten.set(keyId, now.getTime());
  try {
    await ctx.db
      .updateTable('api_keys')
      .set({ last_used_at: iso(now) })
      .where('id', '=', keyId)
      .execute();
  } catch (error) {
    // Bookkeeping must not refuse the request: on a full disk reads keep answering (docs/operations.md); the
    // write is tried again after the resolution.
    if (fullDiskCode(error) === undefined) throw error;
  }
}

export async function authenticateApiKey(ctx: Context, presented: string | undefined): Promise<KeyIdentity> {
  if (!presented) throw new MoharError('invalid_api_key', 'send the account API key in the X-Api-Key header');
  const hash = hashApiKey(presented);
  const now = ctx.now();
  const cached = ctx.keyCache.get(hash, now.getTime());
  if (cached) {
    await touchLastUsed(ctx, cached.keyId, now);
    return cached;
  }
  const row = await ctx.db
    .selectFrom('api_keys')
    .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
    .select([
      'api_keys.id',
      'api_keys.account_id',
      'api_keys.mode',
      'api_keys.prefix',
      'accounts.test_mode',
      'accounts.suspended',
    ])
    .where('api_keys.key_hash', '=', hash)
    .where('api_keys.revoked_at', 'is', null)
    .executeTakeFirst();
  if (!row) throw new MoharError('invalid_api_key', 'the API key is not valid (unknown, mistyped or rotated)');
  const identity: KeyIdentity = {
    keyId: row.id,
    accountId: row.account_id,
    mode: row.mode,
    prefix: row.prefix,
    testMode: row.test_mode === 1,
    suspended: row.suspended === 1,
  };
  ctx.keyCache.set(hash, identity, now.getTime());
  await touchLastUsed(ctx, row.id, now);
  return identity;
}

/** Forget cached identities of an account's keys: after rotation, revocation or a change of the account. */
export function forgetAccountKeys(ctx: Context, accountId: string): void {
  ctx.keyCache.deleteWhere((identity) => identity.accountId === accountId);
}

export async function keyMetadata(ctx: Context, keyId: string): Promise<KeyMetadata> {
  const r = await ctx.db
    .selectFrom('api_keys')
    .select(['prefix', 'mode', 'created_at', 'last_used_at'])
    .where('id', '=', keyId)
    .executeTakeFirstOrThrow();
  return { api_key_prefix: r.prefix, mode: r.mode, created_at: r.created_at, last_used_at: r.last_used_at };
}
