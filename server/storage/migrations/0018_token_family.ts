import { sql, type Kysely } from 'kysely';

/**
 * Issue 16 point 13: refresh-token families.
 *
 * - auth_tokens.family: the login a token descends from (the hash of that login's first refresh token). Every
 *   refresh and access token minted by rotating it carries the same family, so presenting a refresh token that
 *   was already rotated (two parties hold the login) revokes all of them at once (server/domain/auth/tokens.ts).
 *   Indexed: the revocation is one UPDATE by family.
 *
 * Backfill: a refresh token is its own family, an access token joins its refresh token's. Rotations made before
 * this migration are not linked, so a replay of a token rotated before it ends only the tokens minted from it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('auth_tokens').addColumn('family', 'text').execute();
  await sql`UPDATE auth_tokens SET family = CASE WHEN kind = 'refresh' THEN token_hash ELSE refresh_hash END`.execute(
    db,
  );
  await db.schema.createIndex('auth_tokens_family').on('auth_tokens').column('family').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('auth_tokens_family').execute();
  await db.schema.alterTable('auth_tokens').dropColumn('family').execute();
}
