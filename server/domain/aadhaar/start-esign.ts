/**
 * Starting an Aadhaar eSign act (issue 18, step 1 and 2). The signer has filled their fields and consented;
 * Mohar appends ONE revision per document with their values and their Signature field holding an empty
 * signature (the prepare → hash → embed split USB DSC uses, pdf/sign/prepare.ts), room reserved for the
 * ESP's CMS with its chain. The prepared bytes are kept as a blob and in the transaction row, NOT as the
 * document: the envelope is unchanged until a verified response is embedded (accept-response.ts).
 * Then it builds the Esign 2.1 request with one InputHash per document, signed with the ASP key
 * (esign-request.ts), and returns what the browser posts to the ESP.
 */
import { MoharError } from '../../../common/errors.js';
import { RESERVE_WITH_TIMESTAMP } from '../../../pdf/index.js';
import { openSecretBox } from '../../seal/secret-box.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import { readRevision, storeRevision } from '../documents/recent-revisions.js';
import { FIELD_TYPES } from '../../../common/fields.js';
import { loadActors } from '../workflow/act-context.js';
import { checkActionForRole } from '../workflow/decide-act.js';
import { pdfFieldName } from '../workflow/field-names.js';
import { fillValues } from '../workflow/field-values.js';
import type { ResolvedSession } from '../workflow/sessions.js';
import { esignForEnvelope } from './esign-for.js';
import { AUTOPOST_PATH, signedRequestFor } from './esign-request.js';
import { newTxnId, TXN_SECONDS, type PreparedDocument } from './transactions.js';

export interface EsignStartInput {
  consent?: boolean;
  fields?: Record<string, string | boolean>;
}

export interface EsignStart {
  readonly txn: string;
  readonly expires_at: string;
  /** Where the browser posts the form (the ESP's eSign 2.1 URL). */
  readonly esp_url: string;
  /** The form's fields, posted as application/x-www-form-urlencoded. */
  readonly form: {
    readonly eSignRequest: string;
    readonly aspTxnID: string;
    readonly 'Content-Type': 'application/xml';
  };
  /** A page of this server that posts the form by itself (what the signing page opens). */
  readonly autopost_url: string;
}

/** Raw bytes reserved for the ESP's CMS: signer certificate, ESP CA and CCA chain (and room for a timestamp). */
const ESIGN_RESERVE = RESERVE_WITH_TIMESTAMP;

export async function startEsign(
  ctx: Context,
  session: ResolvedSession,
  token: string,
  input: EsignStartInput,
): Promise<EsignStart> {
  // The ESP of this envelope's data: MOHAR_ESIGN_* for live data, the built-in simulator for test data (esign-for.ts).
  await esignForEnvelope(ctx, session.envelopeId);
  if (input.consent !== true) throw new MoharError('consent_required', 'accept the consent statement to sign');
  const { recipient, envelope } = await loadActors(ctx.db, session.envelopeId, session.recipientId);
  checkActionForRole('sign', recipient.role);
  if (recipient.signature_method !== 'aadhaar') {
    throw new MoharError('action_not_allowed', 'only an Aadhaar eSign signer signs with Aadhaar');
  }
  const fields = await ctx.db
    .selectFrom('fields')
    .selectAll()
    .where('envelope_id', '=', session.envelopeId)
    .where('recipient_id', '=', recipient.id)
    .orderBy('position')
    .execute();
  const now = ctx.now();
  const today = iso(now).slice(0, 10);
  const values = fillValues(fields, recipient, input.fields ?? {}, today);

  const txn = newTxnId();
  const documents = await prepareDocuments(ctx, session.envelopeId, fields, values.pdf, {
    name: recipient.name,
    today,
    now,
  });
  if (documents.length === 0) throw new MoharError('document_not_found', 'you have no field to sign in this envelope');
  const box = await openSecretBox(ctx.config);
  const expiresAt = new Date(now.getTime() + TXN_SECONDS * 1000);
  await ctx.db.transaction().execute(async (trx) => {
    // One transaction in flight per signer: an earlier unanswered one is superseded (its late answer is refused).
    await trx
      .updateTable('esign_transactions')
      .set({ state: 'failed', error_code: 'superseded', error_message: 'a newer eSign attempt was started' })
      .where('recipient_id', '=', recipient.id)
      .where('state', '=', 'pending')
      .where('used_at', 'is', null)
      .execute();
    await trx
      .insertInto('esign_transactions')
      .values({
        id: txn,
        account_id: envelope.account_id,
        envelope_id: envelope.id,
        recipient_id: recipient.id,
        session_token_hash: session.tokenHash,
        return_token: box.seal(token, `esign:${txn}`),
        documents: JSON.stringify(documents),
        field_values: JSON.stringify([...values.stored]),
        state: 'pending',
        created_at: iso(now),
        expires_at: iso(expiresAt),
        used_at: null,
        response_code: null,
        error_code: null,
        error_message: null,
      })
      .execute();
  });

  const row = await ctx.db.selectFrom('esign_transactions').selectAll().where('id', '=', txn).executeTakeFirstOrThrow();
  const { esp_url, form } = await signedRequestFor(ctx, row);
  return {
    txn,
    expires_at: iso(expiresAt),
    esp_url,
    form,
    autopost_url: `${ctx.config.baseUrl}${AUTOPOST_PATH}/${txn}`,
  };
}

type Field = Parameters<typeof fillValues>[0][number];

/** Each document holding this signer's fields gets its revision: values + the (empty) signature. */
async function prepareDocuments(
  ctx: Context,
  envelopeId: string,
  fields: readonly Field[],
  pdfValues: Readonly<Record<string, string | boolean>>,
  who: { name: string; today: string; now: Date },
): Promise<PreparedDocument[]> {
  const documentIds = [...new Set(fields.map((f) => f.document_id))];
  if (documentIds.length === 0) return [];
  const current = await ctx.db
    .selectFrom('envelope_documents')
    .select(['document_id', 'current_sha256', 'position'])
    .where('envelope_id', '=', envelopeId)
    .where('document_id', 'in', documentIds)
    .orderBy('position')
    .execute();
  const out: PreparedDocument[] = [];
  for (const doc of current) {
    const docFields = fields.filter((f) => f.document_id === doc.document_id);
    const formValues = Object.fromEntries(
      docFields
        .filter((f) => f.field_type !== FIELD_TYPES.SIGNATURE)
        .map((f) => [pdfFieldName(f), pdfValues[pdfFieldName(f)]])
        .filter(([, v]) => v !== undefined),
    ) as Record<string, string | boolean>;
    const signatureField = docFields.find((f) => f.field_type === FIELD_TYPES.SIGNATURE);
    const bytes = await readRevision(ctx, doc.current_sha256!);
    // The PDF work runs in the worker pool (memory and time caps); the CMS comes later, from the ESP.
    const { prepared } = await ctx.pdf.run('prepareSignature', {
      bytes,
      options: {
        field: signatureField ? { name: pdfFieldName(signatureField) } : { invisible: true },
        formValues,
        signingTime: who.now,
        name: who.name,
        reason: `Signed with Aadhaar eSign by ${who.name}`,
        appearance: { lines: [who.name, 'Aadhaar eSign', who.today] },
        reserve: ESIGN_RESERVE,
      },
    });
    const preparedBytes = Buffer.from(prepared.bytes.buffer, prepared.bytes.byteOffset, prepared.bytes.byteLength);
    out.push({
      document_id: doc.document_id,
      input_id: String(out.length + 1),
      from_sha256: doc.current_sha256!,
      prepared_sha256: await storeRevision(ctx, preparedBytes),
      field_name: prepared.fieldName,
      filled: Object.keys(formValues),
      byte_range: prepared.byteRange,
      contents_offset: prepared.contentsOffset,
      contents_length: prepared.contentsLength,
      previous_length: prepared.previousLength,
      digest: Buffer.from(prepared.digest).toString('hex'),
    });
  }
  return out;
}
