/**
 * Whether an envelope's recipients get mail from Mohar. Legacy documents created headless
 * (is_mail_required: false) or with a qsk_test_ key get none: the caller hands out the links itself, and
 * test documents must not reach real people. Every other envelope does.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.js';

export async function recipientMailAllowed(db: Kysely<Database>, envelopeId: string): Promise<boolean> {
  const row = await db.selectFrom('legacy_documents').select('send_mail').where('envelope_id', '=', envelopeId).executeTakeFirst();
  return row === undefined || row.send_mail === 1;
}
