/**
 * Whether an envelope's recipients get mail from Mohar. Legacy documents created headless
 * (is_mail_required: false) or with a qsk_test_ key get none: the caller hands out the links itself, and
 * test documents must not reach real people. Nor do the sandbox's mock DSC requests (server/domain/sandbox).
 * Every other envelope does.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.js';

export async function recipientMailAllowed(db: Kysely<Database>, envelopeId: string): Promise<boolean> {
  const row = await db.selectFrom('legacy_documents').select('send_mail').where('envelope_id', '=', envelopeId).executeTakeFirst();
  if (row !== undefined) return row.send_mail === 1;
  const mock = await db.selectFrom('sandbox_requests').select('public_id').where('envelope_id', '=', envelopeId).executeTakeFirst();
  return mock === undefined;
}
