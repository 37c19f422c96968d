/** Where the signer goes after an Aadhaar eSign act, as for the other methods of signing. */
import type { Context } from '../context.js';

/**
 * The link's return_url or the envelope's redirect_url (both checked as http(s) when they were set), or null. The
 * envelope's comes from the act's settlement (workflow/settle-act.ts), which has read the envelope already.
 */
export async function returnTargetAfterEsign(
  ctx: Context,
  txn: string,
  envelopeRedirectUrl: string | null,
): Promise<string | null> {
  const link = await ctx.db
    .selectFrom('esign_transactions')
    .innerJoin('signing_sessions', 'signing_sessions.token_hash', 'esign_transactions.session_token_hash')
    .select('signing_sessions.return_url')
    .where('esign_transactions.id', '=', txn)
    .executeTakeFirst();
  const target = link?.return_url ?? envelopeRedirectUrl;
  return target !== null && /^https?:$/.test(URL.canParse(target) ? new URL(target).protocol : '') ? target : null;
}
