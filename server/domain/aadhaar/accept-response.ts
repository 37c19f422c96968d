/**
 * The ESP's answer (issue 18, steps 4 and 5), from the response URL or an EsignStatus query. In order:
 * the XML signature against the pinned ESP certificate (aadhaar/xml.ts: one enveloped reference, values
 * read only from the verified element); the txn (known, unused, not expired: claimed once, whatever
 * follows); the ESP's status; per document the CMS (its message digest is the InputHash, its signature
 * holds, its signer is the response's certificate); the certificate's path to a CCA root (or an anchor of
 * MOHAR_DSC_TRUST_ANCHORS) at this time; the certificate names the recipient; the CMS embedded into the
 * prepared revision and that revision judged by the upload allow-list and verified. Only then, in one
 * database transaction, the prepared revision becomes the document (if it is still current) and the act is
 * recorded. Any refusal leaves the envelope as it was; the signer gets the reason and may start again.
 */
import { MoharError } from '../../../common/errors.js';
import {
  buildCertificatePath,
  certInfo,
  embedSignature,
  inspectCms,
  judgeCertificatePath,
} from '../../../pdf/index.js';
import { verifyEsignResponse, type EsignResponse } from '../../aadhaar/messages.js';
import { openSecretBox } from '../../seal/secret-box.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import { bindIdentity } from '../trust/identity.js';
import { loadActors, type ClientInfo } from '../workflow/act-context.js';
import { commitAct } from '../workflow/commit-act.js';
import { summarizeEsignCertificate } from './certificate-summary.js';
import { esignForResponse, type EsignSettings } from './esign-for.js';
import { reasonOfEspCode, type EsignFailureReason } from './esp-errors.js';
import {
  claimTxn,
  documentsOf,
  failTxn,
  findTxn,
  reachedByOf,
  valuesOf,
  type PreparedDocument,
  type TxnRow,
} from './transactions.js';

export type EsignOutcome =
  | {
      readonly ok: true;
      readonly txn: string;
      readonly token: string;
      readonly envelopeId: string;
      readonly envelopeFinished: boolean;
    }
  | {
      readonly ok: false;
      readonly txn: string | null;
      readonly token: string | null;
      readonly reason: EsignFailureReason;
      readonly code: string;
      readonly message: string;
      readonly espCode: string | null;
    };

function refuse(reason: EsignFailureReason, message: string): MoharError {
  return new MoharError('esign_response_invalid', `the Aadhaar eSign response was not accepted: ${message}`, {
    extra: { reason },
  });
}

/** The token of the signing link the transaction was started from (to send the signer back). */
async function returnToken(ctx: Context, row: TxnRow): Promise<string> {
  return (await openSecretBox(ctx.config)).open(row.return_token, `esign:${row.id}`).toString('utf8');
}

function failure(
  row: TxnRow | undefined,
  token: string | null,
  error: MoharError,
  espCode: string | null = null,
): EsignOutcome {
  const extra = (error.extra ?? {}) as { reason?: string };
  const reason: EsignFailureReason =
    error.code === 'esign_failed'
      ? (extra.reason as EsignFailureReason)
      : error.code === 'esign_txn_invalid'
        ? extra.reason === 'expired'
          ? 'expired'
          : 'response_invalid'
        : error.code === 'esign_response_invalid'
          ? ((extra.reason as EsignFailureReason | undefined) ?? 'response_invalid')
          : error.code === 'recipient_not_active' || error.code === 'envelope_closed'
            ? 'document_changed'
            : 'response_invalid';
  return { ok: false, txn: row?.id ?? null, token, reason, code: error.code, message: error.message, espCode };
}

/** Verifies and applies an EsignResp. Known refusals come back as `ok: false` (the page shows them); bugs throw. */
export async function acceptEsignResponse(ctx: Context, xml: string, client: ClientInfo): Promise<EsignOutcome> {
  // The pinned certificate and anchors of the ESP of the txn's data (live: MOHAR_ESIGN_*; test: the built-in
  // simulator).
  const esign = await esignForResponse(ctx, xml);
  let response: EsignResponse;
  try {
    response = verifyEsignResponse(xml, esign.espCertificatePem);
  } catch (error) {
    if (error instanceof MoharError) return failure(undefined, null, error);
    throw error;
  }
  const known = await findTxn(ctx.db, response.txn);
  const token = known ? await returnToken(ctx, known) : null;
  let row: TxnRow;
  try {
    row = await claimTxn(ctx.db, response.txn, ctx.now());
  } catch (error) {
    if (error instanceof MoharError) return failure(known, token, error);
    throw error;
  }
  try {
    if (response.status !== '1') {
      const reason = reasonOfEspCode(response.errCode);
      throw new MoharError(
        'esign_failed',
        `the eSign service provider did not sign: ${response.errMsg || response.errCode} (${response.errCode})`,
        { extra: { reason, esp_code: response.errCode } },
      );
    }
    const finished = await applySignature(ctx, row, response, client, esign);
    await ctx.db
      .updateTable('esign_transactions')
      .set({ state: 'signed', response_code: response.resCode.slice(0, 200) })
      .where('id', '=', row.id)
      .execute();
    return { ok: true, txn: row.id, token: token!, envelopeId: row.envelope_id, envelopeFinished: finished };
  } catch (error) {
    const espCode = response.status === '1' ? null : response.errCode;
    await failTxn(ctx.db, row.id, {
      code: error instanceof MoharError ? error.code : 'internal_error',
      message: (error as Error).message,
      responseCode: response.resCode || null,
    });
    if (error instanceof MoharError) return failure(row, token, error, espCode);
    throw error;
  }
}

interface CheckedDocument {
  readonly doc: PreparedDocument;
  readonly sha256: string;
  readonly size: number;
}

async function applySignature(
  ctx: Context,
  row: TxnRow,
  response: EsignResponse,
  client: ClientInfo,
  esign: EsignSettings,
): Promise<boolean> {
  const now = ctx.now();
  const { recipient } = await loadActors(ctx.db, row.envelope_id, row.recipient_id);
  const documents = documentsOf(row);
  const responseCertificate = response.userCertificate ? Buffer.from(response.userCertificate, 'base64') : null;
  let signer: Uint8Array | null = null;
  let pool: Uint8Array[] = [];
  const cmsOf = new Map<string, Buffer>();
  for (const doc of documents) {
    const entry = response.signatures.find((s) => s.id === doc.input_id);
    if (!entry || entry.value === '') {
      throw refuse(
        'response_invalid',
        `no signature for document ${doc.input_id}${entry?.error ? ` (${entry.error})` : ''}`,
      );
    }
    const cms = Buffer.from(entry.value, 'base64');
    const inspection = inspectCms(cms, { contentDigest: Buffer.from(doc.digest, 'hex') });
    if (
      !inspection.messageDigest ||
      Buffer.from(inspection.messageDigest).toString('hex') !== doc.digest ||
      inspection.messageDigestMatches !== true
    ) {
      throw refuse(
        'response_invalid',
        `the signature of document ${doc.input_id} is not over the hash Mohar sent (message digest differs from the InputHash)`,
      );
    }
    if (!inspection.signatureValid || !inspection.signerCertificate) {
      throw refuse(
        'response_invalid',
        `the signature of document ${doc.input_id} does not verify (${inspection.problems.join('; ') || 'no signer certificate'})`,
      );
    }
    if (signer && !Buffer.from(signer).equals(Buffer.from(inspection.signerCertificate))) {
      throw refuse('response_invalid', 'the documents are signed by different certificates');
    }
    signer = inspection.signerCertificate;
    pool = [...pool, ...inspection.certificates];
    cmsOf.set(doc.input_id, cms);
  }
  if (!signer) throw refuse('response_invalid', 'the response carries no signature');
  if (responseCertificate && responseCertificate.length > 0 && !responseCertificate.equals(Buffer.from(signer))) {
    throw refuse('response_invalid', 'UserX509Certificate is not the certificate that signed');
  }

  // The eSign certificate is issued for this signature by the ESP's CA under a CCA root.
  const built = buildCertificatePath(signer, pool, esign.trustAnchors);
  const judged = judgeCertificatePath(built, now);
  if (!built.anchored || judged.problem !== null) {
    throw refuse(
      'certificate_untrusted',
      `the signer's certificate does not chain to a CCA root or a configured anchor (${judged.problems.join('; ') || 'no path'})`,
    );
  }
  const identity = bindIdentity(certInfo(signer), recipient);
  if (!identity.name_match) {
    throw refuse(
      'name_mismatch',
      `the Aadhaar e-KYC name "${identity.certificate_name ?? ''}" is not the recipient's name "${recipient.name}"`,
    );
  }

  const checked: CheckedDocument[] = [];
  for (const doc of documents) {
    const signed = await embedAndJudge(ctx, doc, cmsOf.get(doc.input_id)!);
    // Stored before the transaction (a blob no row names is collected later); it becomes the document below.
    checked.push({ doc, sha256: await ctx.blobs.put(signed), size: signed.length });
  }
  const summary = summarizeEsignCertificate(signer);
  return commitAct(ctx, {
    envelopeId: row.envelope_id,
    recipientId: row.recipient_id,
    documents: checked.map(({ doc, sha256, size }) => ({
      documentId: doc.document_id,
      from: doc.from_sha256,
      revisions: [{ sha256, size, act: 'signed' }],
    })),
    values: valuesOf(row),
    record: {
      status: 'signed',
      method: 'aadhaar',
      // The ESP's post carries no signing link: how the signer was reached is the link the txn was started from.
      client: { ...client, reachedBy: await reachedByOf(ctx.db, row) },
      details: () => ({
        certificate: summary,
        // One line for the certificate of completion ('Signing certificate').
        certificate_subject: [
          summary.subject,
          `Aadhaar eSign${summary.year_of_birth ? `, year of birth ${summary.year_of_birth}` : ''}${summary.gender ? `, gender ${summary.gender}` : ''}`,
          `${esign.sandbox ? 'sandbox ESP simulator' : `ESP ${new URL(esign.espUrl).host}`}, txn ${row.id}`,
        ].join('; '),
        esp: { txn: row.id, res_code: response.resCode, ts: response.ts, url: esign.espUrl, sandbox: esign.sandbox },
        certificate_validation: {
          anchor: built.path.at(-1)!.subject,
          chain: built.path.map((c) => c.subject),
          checked_at: iso(now),
        },
        name_match: identity.name_match,
        pades_level: 'B-B',
      }),
    },
    at: iso(ctx.now()),
    stale: () =>
      refuse(
        'document_changed',
        'the document changed while you were with the eSign service provider (another signer acted); sign again',
      ),
  });
}

/** The CMS into the prepared placeholder, then the allow-list's judgement and our verifier, off the event loop. */
async function embedAndJudge(ctx: Context, doc: PreparedDocument, cms: Buffer): Promise<Buffer> {
  const bytes = await ctx.blobs.get(doc.prepared_sha256);
  let signed: Buffer;
  try {
    signed = embedSignature(
      {
        bytes,
        byteRange: doc.byte_range,
        contentsOffset: doc.contents_offset,
        contentsLength: doc.contents_length,
        digest: Buffer.from(doc.digest, 'hex'),
        fieldName: doc.field_name,
        previousLength: doc.previous_length,
      },
      cms,
    );
  } catch (error) {
    if (error instanceof MoharError) throw refuse('response_invalid', error.message);
    throw error;
  }
  const prior = await ctx.blobs.get(doc.from_sha256);
  const { judgement, report, readError } = await ctx.pdf.run('checkUpload', {
    prepared: prior,
    uploaded: signed,
    policy: { signingField: doc.field_name, fillableFields: [...doc.filled], allowLtv: false },
  });
  if (!judgement.accepted) {
    throw new Error(
      `internal error: the Aadhaar eSign revision Mohar built changes more than that act may (${judgement.problem ?? 'refused'}); nothing was stored`,
    );
  }
  const added = report?.signatures.at(-1);
  if (
    !report ||
    !added ||
    added.field !== doc.field_name ||
    !added.digestValid ||
    !added.signatureValid ||
    !added.coversWholeDocument
  ) {
    throw refuse(
      'response_invalid',
      `the signed document does not verify (${readError ?? added?.problems.join('; ') ?? 'no signature found'})`,
    );
  }
  return signed;
}
