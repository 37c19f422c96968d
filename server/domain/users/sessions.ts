/** Ending a user's logins: every refresh and access token at once (deactivation, password change or reset). */
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.js';
import { iso } from '../time.js';

/** `keepRefreshHash`: the session to keep (a user changing their own password stays logged in there). */
export async function revokeUserSessions(
  db: Kysely<Database>,
  now: Date,
  userId: string,
  keepRefreshHash?: string,
): Promise<void> {
  let query = db
    .updateTable('auth_tokens')
    .set({ revoked_at: iso(now) })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null);
  if (keepRefreshHash) {
    query = query
      .where('token_hash', '!=', keepRefreshHash)
      .where((eb) => eb.or([eb('refresh_hash', 'is', null), eb('refresh_hash', '!=', keepRefreshHash)]));
  }
  await query.execute();
}
