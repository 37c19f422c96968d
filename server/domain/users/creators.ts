/**
 * Issue 15: envelopes and templates record the console user who created them (created_by_user_id,
 * migration 0015); the API shows it as `created_by`. Null: made with an API key or by the system.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.js';

export interface CreatedBy {
  user_id: string;
  email: string;
}

/** A user known by id and e-mail (the login that creates); the row stores the id alone. */
export interface Creator {
  readonly userId: string;
  readonly email: string;
}

export function createdByView(userId: string | null | undefined, email: string | null | undefined): CreatedBy | null {
  // Users are deactivated, never deleted: the e-mail is always found; '' only guards a hand-edited database.
  return userId ? { user_id: userId, email: email ?? '' } : null;
}

/**
 * The e-mails of a page's creators, one query by primary key after the page is read, so the list's
 * index walk stays a walk of `envelopes` (or `templates`) alone.
 */
export async function creatorEmails(
  db: Kysely<Database>,
  userIds: readonly (string | null | undefined)[],
): Promise<Map<string, string>> {
  const ids = [...new Set(userIds.filter((id): id is string => typeof id === 'string'))];
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('users').select(['id', 'email']).where('id', 'in', ids).execute();
  return new Map(rows.map((r) => [r.id, r.email]));
}

/** One user's e-mail (a template created by the console: its answer shows the creator). */
export async function emailOf(db: Kysely<Database>, userId: string): Promise<string> {
  return (await creatorEmails(db, [userId])).get(userId) ?? '';
}
