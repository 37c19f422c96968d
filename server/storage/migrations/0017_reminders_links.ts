import { sql, type Kysely } from 'kysely';

/**
 * Issue 16, points 6, 10 and 11: automatic reminders, signing links out of stored bodies, link lifetime.
 *
 * - envelopes.reminders: JSON { first_after_days, every_days, expiry_warning_days } of this envelope, or null
 *   (the account's defaults, accounts.settings.reminders, apply). Each value is days or null (off).
 * - recipients.expiry_warned_at: when this recipient was warned that the envelope expires soon (once).
 *   recipients.reminded_at (0006) stays the time of the last reminder, manual or automatic.
 * - signing_sessions.kind: how the link was handed out: 'mail' (invitation, your-turn, reminder mail),
 *   'legacy_link' (legacy signing_info and signing-links), 'session' (POST /signing-sessions), 'sandbox'.
 *   Rows from before: 'mail' for mode 'email', else 'session'.
 *   signing_sessions.revoked_at: set when a newer link replaced it or revoke-links ended it.
 *   Indexed by recipient: a reissue revokes that recipient's earlier links.
 * - outbox_mail.sealed: 1 when text and html are secret-box ciphertexts (mails that carry a signing link).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('envelopes').addColumn('reminders', 'text').execute();
  await db.schema.alterTable('recipients').addColumn('expiry_warned_at', 'text').execute();
  await db.schema
    .alterTable('signing_sessions')
    .addColumn('kind', 'text', (c) => c.notNull().defaultTo('session'))
    .execute();
  await db.schema.alterTable('signing_sessions').addColumn('revoked_at', 'text').execute();
  await sql`UPDATE signing_sessions SET kind = 'mail' WHERE mode = 'email'`.execute(db);
  await db.schema
    .createIndex('signing_sessions_recipient')
    .on('signing_sessions')
    .columns(['recipient_id', 'expires_at'])
    .execute();
  await db.schema
    .alterTable('outbox_mail')
    .addColumn('sealed', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('outbox_mail').dropColumn('sealed').execute();
  await db.schema.dropIndex('signing_sessions_recipient').execute();
  await db.schema.alterTable('signing_sessions').dropColumn('revoked_at').execute();
  await db.schema.alterTable('signing_sessions').dropColumn('kind').execute();
  await db.schema.alterTable('recipients').dropColumn('expiry_warned_at').execute();
  await db.schema.alterTable('envelopes').dropColumn('reminders').execute();
}
