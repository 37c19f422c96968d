/**
 * A lost callback (the signer closed the tab at the ESP, the network dropped the ESP's post): the signer's
 * last pending transaction is asked about with an EsignStatus query to MOHAR_ESIGN_STATUS_URL (server to
 * server, signed by the ASP key). The ESP answers with the EsignResp it sent (or status 2 while the signer
 * has not finished), which goes through exactly the same checks as a posted response (accept-response.ts).
 */
import { MoharError } from '../../../common/errors.js';
import {
  ESIGN_VERSION,
  formatEsignTimestamp,
  signEsignStatusRequest,
  verifyEsignResponse,
} from '../../aadhaar/messages.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import type { ClientInfo } from '../workflow/act-context.js';
import type { ResolvedSession } from '../workflow/sessions.js';
import { acceptEsignResponse, type EsignOutcome } from './accept-response.js';
import { aspSigner } from './asp-signer.js';
import { esignForEnvelope } from './esign-for.js';

export type EsignRecovery =
  { readonly state: 'none' | 'pending' } | { readonly state: 'answered'; readonly outcome: EsignOutcome };

export async function recoverEsignStatus(
  ctx: Context,
  session: ResolvedSession,
  client: ClientInfo,
): Promise<EsignRecovery> {
  const esign = await esignForEnvelope(ctx, session.envelopeId);
  const now = ctx.now();
  const row = await ctx.db
    .selectFrom('esign_transactions')
    .selectAll()
    .where('recipient_id', '=', session.recipientId)
    .where('state', '=', 'pending')
    .where('used_at', 'is', null)
    .where('expires_at', '>', iso(now))
    .orderBy('created_at', 'desc')
    .executeTakeFirst();
  if (!row) return { state: 'none' };
  if (!esign.statusUrl) return { state: 'pending' };
  const query = await signEsignStatusRequest(
    { ver: ESIGN_VERSION, ts: formatEsignTimestamp(now), txn: row.id, aspId: esign.aspId },
    await aspSigner(ctx, esign),
  );
  let xml: string;
  try {
    const answer = await ctx.transports.esignStatus({
      url: esign.statusUrl,
      body: Buffer.from(query, 'utf8'),
      contentType: 'application/xml',
      accept: 'application/xml',
    });
    xml = Buffer.from(answer).toString('utf8');
  } catch (error) {
    throw new MoharError(
      'esign_unavailable',
      `the eSign service provider's status service did not answer: ${(error as Error).message}`,
      { cause: error },
    );
  }
  // Status 2: the signer has not finished at the ESP yet; the transaction stays open.
  if (verifyEsignResponse(xml, esign.espCertificatePem).status === '2') return { state: 'pending' };
  return { state: 'answered', outcome: await acceptEsignResponse(ctx, xml, client) };
}
