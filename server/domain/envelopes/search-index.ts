/** Keeps an envelope's search rows (search_text and terms, see search-terms.ts) in step with its texts. */
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.js';
import { searchRowsOf, termsOf } from '../../storage/search-terms.js';

/**
 * Rewrites the search rows of one envelope from what is stored now. Call it inside the transaction that
 * changed the title, the external_id or a recipient's name or e-mail, after the change.
 */
export async function refreshSearch(trx: Kysely<Database>, envelopeId: string): Promise<void> {
  const envelope = await trx
    .selectFrom('envelopes')
    .select(['id', 'account_id', 'title', 'external_id', 'search_text'])
    .where('id', '=', envelopeId)
    .executeTakeFirstOrThrow();
  const recipients = await trx
    .selectFrom('recipients')
    .select(['name', 'email'])
    .where('envelope_id', '=', envelopeId)
    .orderBy('position')
    .execute();
  const { searchText, terms } = searchRowsOf({ ...envelope, recipients });
  await trx.updateTable('envelopes').set({ search_text: searchText }).where('id', '=', envelopeId).execute();
  // The old terms follow from the old search_text: deleted by primary key, so no index on envelope_id is kept up.
  const old = envelope.search_text ? termsOf(envelope.search_text) : [];
  if (old.length > 0) {
    await trx
      .deleteFrom('envelope_search_terms')
      .where('account_id', '=', envelope.account_id)
      .where('term', 'in', old)
      .where('envelope_id', '=', envelopeId)
      .execute();
  }
  if (terms.length > 0) await trx.insertInto('envelope_search_terms').values(terms).execute();
}
