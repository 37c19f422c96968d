/**
 * The signed Esign 2.1 request of a transaction: one InputHash per prepared document, the ASP's enveloped
 * XML signature (aadhaar/messages.ts, xml.ts). Built when the transaction starts and again, from the same
 * row, when the auto-post page is opened (a fresh `ts`; the txn and the hashes are the row's).
 */
import { ESIGN_VERSION, formatEsignTimestamp, signEsignRequest, type InputHash } from '../../aadhaar/messages.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import { aspSigner } from './asp-signer.js';
import { esignForEnvelope } from './esign-for.js';
import { documentsOf, findTxn, type TxnRow } from './transactions.js';

/** The path of the response URL the ESP posts EsignResp to (pages, not the JSON API). */
export const RESPONSE_PATH = '/sign/aadhaar/response';
/** The auto-post page of a transaction: {AUTOPOST_PATH}/{txn}. */
export const AUTOPOST_PATH = '/sign/aadhaar/go';

export interface EsignForm {
  readonly esp_url: string;
  readonly form: {
    readonly eSignRequest: string;
    readonly aspTxnID: string;
    readonly 'Content-Type': 'application/xml';
  };
}

export async function signedRequestFor(ctx: Context, row: TxnRow): Promise<EsignForm> {
  const esign = await esignForEnvelope(ctx, row.envelope_id);
  const envelope = await ctx.db
    .selectFrom('envelopes')
    .select('title')
    .where('id', '=', row.envelope_id)
    .executeTakeFirstOrThrow();
  const files = await ctx.db
    .selectFrom('documents')
    .select(['id', 'filename'])
    .where(
      'id',
      'in',
      documentsOf(row).map((d) => d.document_id),
    )
    .execute();
  const docs: InputHash[] = documentsOf(row).map((d) => ({
    id: d.input_id,
    hashAlgorithm: 'SHA256',
    docInfo: `${envelope.title}: ${files.find((f) => f.id === d.document_id)?.filename ?? d.document_id}`.slice(0, 200),
    hash: d.digest,
  }));
  const eSignRequest = await signEsignRequest(
    {
      ver: ESIGN_VERSION,
      sc: 'Y',
      ts: formatEsignTimestamp(ctx.now()),
      txn: row.id,
      ekycId: '',
      ekycIdType: 'A',
      aspId: esign.aspId,
      authMode: esign.authMode,
      responseSigType: 'pkcs7',
      responseUrl: `${ctx.config.baseUrl}${RESPONSE_PATH}`,
      docs,
    },
    await aspSigner(ctx, esign),
  );
  return { esp_url: esign.espUrl, form: { eSignRequest, aspTxnID: row.id, 'Content-Type': 'application/xml' } };
}

/** The request of a transaction that may still be posted: pending, unanswered, not expired. */
export async function openRequestFor(ctx: Context, txn: string): Promise<EsignForm | null> {
  const row = await findTxn(ctx.db, txn);
  if (!row || row.state !== 'pending' || row.used_at !== null || row.expires_at <= iso(ctx.now())) return null;
  return signedRequestFor(ctx, row);
}
