import { sql, type Kysely } from 'kysely';
import { isPostgres } from './dialect.js';
import { searchRowsOf, type SearchSource } from '../search-terms.js';

/**
 * Issue 14, GET /envelopes: newest first with cursor paging and filters, fast with 100,000 envelopes.
 *
 * Ordering and filters: one index per way in, each ending in (created_at, id) so a page is an index
 * range walked newest first and stopped after `limit` rows; the old (account_id, created_at) index is
 * a prefix of the new list index and goes.
 *
 * Search (`q`, see server/storage/search-terms.ts): the same plain SQL on both databases, no
 * extension. `envelopes.search_text` holds title, external_id and the recipients' names and e-mails,
 * normalized (lower case, every word start marked), so `q` matching many envelopes is found by walking
 * the list index with one LIKE. `envelope_search_terms` holds every word-start suffix of those texts
 * (cut to 32 characters) so `q` matching few is found by a prefix range on (account_id, term). Both are
 * written with the envelope and its recipients; an envelope's old terms are found again from its old
 * search_text and deleted by primary key, so the table has no other index (each term row costs one b-tree
 * insert; each envelope writes 5 to 25 of them). The term column sorts bytewise (COLLATE "C" on
 * PostgreSQL; SQLite's default) so a prefix is one contiguous range whatever the database's locale.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = isPostgres(db);
  await db.schema.alterTable('envelopes').addColumn('search_text', 'text').execute();
  await db.schema
    .createTable('envelope_search_terms')
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('term', 'text', (c) => (postgres ? c.notNull().modifyFront(sql`collate "C"`) : c.notNull()))
    .addColumn('envelope_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('envelope_search_terms_pk', ['account_id', 'term', 'envelope_id'])
    // SQLite: the primary key is the table (one b-tree per row written, not two).
    .$call((t) => (postgres ? t : t.modifyEnd(sql`without rowid`)))
    .execute();

  await db.schema.dropIndex('envelopes_account').execute();
  await db.schema.createIndex('envelopes_list').on('envelopes').columns(['account_id', 'created_at', 'id']).execute();
  await db.schema
    .createIndex('envelopes_list_status')
    .on('envelopes')
    .columns(['account_id', 'status', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('envelopes_list_template')
    .on('envelopes')
    .columns(['template_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('envelopes_list_bulk')
    .on('envelopes')
    .columns(['bulk_send_id', 'created_at', 'id'])
    .execute();
  await backfill(db);
}

/** Envelopes made before this migration get their search rows, a few hundred at a time. */
async function backfill(db: Kysely<unknown>): Promise<void> {
  const typed = db as unknown as Kysely<BackfillTables>;
  let after = '';
  for (;;) {
    const envelopes = await typed
      .selectFrom('envelopes')
      .select(['id', 'account_id', 'title', 'external_id'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(500)
      .execute();
    if (envelopes.length === 0) return;
    const recipients = await typed
      .selectFrom('recipients')
      .select(['envelope_id', 'name', 'email'])
      .where(
        'envelope_id',
        'in',
        envelopes.map((e) => e.id),
      )
      .execute();
    for (const envelope of envelopes) {
      const source: SearchSource = { ...envelope, recipients: recipients.filter((r) => r.envelope_id === envelope.id) };
      const { searchText, terms } = searchRowsOf(source);
      await typed.updateTable('envelopes').set({ search_text: searchText }).where('id', '=', envelope.id).execute();
      if (terms.length > 0) await typed.insertInto('envelope_search_terms').values(terms).execute();
    }
    after = envelopes[envelopes.length - 1]!.id;
  }
}

interface BackfillTables {
  envelopes: { id: string; account_id: string; title: string; external_id: string | null; search_text: string | null };
  recipients: { envelope_id: string; name: string; email: string };
  envelope_search_terms: { account_id: string; term: string; envelope_id: string };
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('envelopes_list_bulk').execute();
  await db.schema.dropIndex('envelopes_list_template').execute();
  await db.schema.dropIndex('envelopes_list_status').execute();
  await db.schema.dropIndex('envelopes_list').execute();
  await db.schema.createIndex('envelopes_account').on('envelopes').columns(['account_id', 'created_at']).execute();
  await db.schema.dropTable('envelope_search_terms').execute();
  await db.schema.alterTable('envelopes').dropColumn('search_text').execute();
}
