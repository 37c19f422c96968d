/**
 * The USB DSC act. The desktop fetches the prepared bytes (the current revision with this signer's values
 * filled), signs them with the token (one incremental revision), and uploads the result. The server
 * accepts it only if the prepared bytes are an exact prefix, the appended revision adds exactly one valid
 * signature on this recipient's Signature field and nothing else, and the certificate is trusted
 * (server/domain/trust: chain to an anchor, validity at the signing time, key usage, revocation; or the
 * account accepts untrusted certificates). Otherwise nothing changes.
 */
import { MoharError } from '../../../common/errors.js';
import { certInfo, inspectCms, policyOids, type ChangedObject } from '../../../pdf/index.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import { judgeDscSignature, storeValidationData } from '../trust/dsc-trust.js';
import { FIELD_TYPES } from '../../../common/fields.js';
import { loadActors, type ClientInfo } from './act-context.js';
import { commitAct } from './commit-act.js';
import type { DecisionResult } from './decide-act.js';
import { pdfFieldName } from './field-names.js';
import { assertOwnRevisionOffLoop } from './revision-guard.js';
import { fillValues } from './field-values.js';
import type { ResolvedSession } from './sessions.js';

export interface PreparedForToken {
  readonly bytes: Buffer;
  readonly fieldName: string;
}

/** 422 invalid_signed_document; `offending` (the allow-list's verdicts) goes into the problem's `objects`. */
function refuse(reason: string, offending: readonly ChangedObject[] = []): MoharError {
  const objects = offending
    .slice(0, 20)
    .map(({ num, reason: why, field }) => ({ object: num, reason: why, ...(field === undefined ? {} : { field }) }));
  return new MoharError(
    'invalid_signed_document',
    `the signed document was not accepted: ${reason}`,
    objects.length > 0 ? { extra: { objects } } : undefined,
  );
}

async function dscContext(ctx: Context, session: ResolvedSession, documentId: string) {
  const { recipient } = await loadActors(ctx.db, session.envelopeId, session.recipientId);
  if (recipient.role !== 'signer' || recipient.signature_method !== 'dsc') {
    throw new MoharError('action_not_allowed', 'only a USB DSC signer signs with a token');
  }
  const fields = await ctx.db
    .selectFrom('fields')
    .selectAll()
    .where('envelope_id', '=', session.envelopeId)
    .where('recipient_id', '=', recipient.id)
    .where('document_id', '=', documentId)
    .orderBy('position')
    .execute();
  const signatureField = fields.find((f) => f.field_type === FIELD_TYPES.SIGNATURE);
  if (!signatureField) {
    throw new MoharError('document_not_found', `you have no Signature field in document ${documentId}`);
  }
  const document = await ctx.db
    .selectFrom('envelope_documents')
    .select('current_sha256')
    .where('envelope_id', '=', session.envelopeId)
    .where('document_id', '=', documentId)
    .executeTakeFirstOrThrow();
  return { recipient, fields, signatureField, currentSha: document.current_sha256! };
}

/** GET/POST …/documents/{id}/prepared: the bytes the token signs over; remembered for the upload check. */
export async function prepareForToken(
  ctx: Context,
  session: ResolvedSession,
  documentId: string,
  given: Record<string, string | boolean> = {},
): Promise<PreparedForToken> {
  const { recipient, fields, signatureField, currentSha } = await dscContext(ctx, session, documentId);
  const values = fillValues(fields, recipient, given, iso(ctx.now()).slice(0, 10));
  const details = JSON.stringify({ prepared_from: currentSha, values: Object.fromEntries(values.stored) });
  // The same inputs as the recipient's pending prepared document: the same bytes, no new fill and no new blob.
  if (
    recipient.prepared_sha256 &&
    recipient.act_details === details &&
    (await ctx.blobs.has(recipient.prepared_sha256))
  ) {
    return { bytes: await ctx.blobs.get(recipient.prepared_sha256), fieldName: pdfFieldName(signatureField) };
  }
  const current = await ctx.blobs.get(currentSha);
  // Filling parses the document: in the PDF worker pool (memory and time caps), off the event loop.
  const bytes =
    Object.keys(values.pdf).length > 0
      ? Buffer.from(await ctx.pdf.run('fill', { bytes: current, values: values.pdf }))
      : current;
  if (bytes !== current) {
    await assertOwnRevisionOffLoop(ctx.pdf, 'prepared (DSC form filling)', current, bytes, {
      fillableFields: Object.keys(values.pdf),
    });
  }
  const sha256 = await ctx.blobs.put(bytes);
  await ctx.db
    .updateTable('recipients')
    .set({ prepared_sha256: sha256, act_details: details })
    .where('id', '=', recipient.id)
    .execute();
  return { bytes, fieldName: pdfFieldName(signatureField) };
}

/** PUT …/documents/{id}/signed: check the upload strictly, then record the act. */
export async function acceptTokenSignature(
  ctx: Context,
  session: ResolvedSession,
  documentId: string,
  uploaded: Buffer,
  client: ClientInfo,
): Promise<DecisionResult> {
  const { recipient, fields, signatureField, currentSha } = await dscContext(ctx, session, documentId);
  if (!recipient.prepared_sha256) throw refuse('fetch the prepared document first (GET …/prepared)');
  const prepared = await ctx.blobs.get(recipient.prepared_sha256);
  const preparedFrom = JSON.parse(recipient.act_details ?? '{}') as {
    prepared_from?: string;
    values?: Record<string, string>;
  };
  if (preparedFrom.prepared_from !== currentSha) {
    throw refuse('the document changed since it was prepared; fetch the prepared document again');
  }
  if (uploaded.length <= prepared.length || !uploaded.subarray(0, prepared.length).equals(prepared)) {
    throw refuse('it does not extend the prepared bytes exactly (earlier bytes changed)');
  }
  // The allow-list: one revision that only signs THIS recipient's field (and perhaps adds validation data, and
  // updates the document metadata as signing tools do: /Info, XMP, catalog /Version).
  // Judged and verified in the PDF worker pool: the upload is untrusted bytes (memory and time caps).
  const { judgement, report, readError } = await ctx.pdf.run('checkUpload', {
    prepared,
    uploaded,
    policy: {
      signingField: pdfFieldName(signatureField),
      allowLtv: true,
      allowMetadata: true,
      // Token software may lock the signer's own fields (the signature field has no /Lock: send-envelope.ts).
      ownFields: fields.map(pdfFieldName),
    },
  });
  if (!judgement.accepted) {
    throw refuse(judgement.problem ?? 'it changes more than your signature', judgement.offending);
  }
  if (!report) throw refuse(`it cannot be read (${readError ?? 'unknown error'})`);
  const before = report.signatures.filter(
    (s) => (s.byteRange[2] ?? 0) + (s.byteRange[3] ?? 0) <= prepared.length,
  ).length;
  const added = report.signatures.slice(before);
  if (added.length !== 1) throw refuse(`it must add exactly one signature; it adds ${added.length}`);
  const signature = added[0]!;
  if (signature.kind !== 'signature') throw refuse('the added signature is a document timestamp');
  if (signature.field !== pdfFieldName(signatureField)) {
    throw refuse(`the signature is in field "${signature.field}", not in your field "${pdfFieldName(signatureField)}"`);
  }
  if (!signature.coversWholeDocument) throw refuse('something was appended after the signature');
  if (!signature.digestValid || !signature.signatureValid) {
    throw refuse(`the signature is not valid: ${signature.problems.join('; ') || 'digest or signature check failed'}`);
  }
  const earlier = report.signatures.slice(0, before);
  if (earlier.some((s) => !s.valid)) throw refuse('an earlier signature is no longer valid');

  const cms = signerCertificateOf(uploaded, signature.byteRange);
  const signer = signature.signer;
  // Chain to a trust anchor, validity at the signing time, key usage, revocation, binding (server/domain/trust).
  const trust = await judgeDscSignature(ctx, {
    envelopeId: session.envelopeId,
    recipient,
    pdf: uploaded,
    byteRange: signature.byteRange,
    timestamp: signature.timestamp,
  });

  const sha256 = await ctx.blobs.put(uploaded);
  // The signer's values, when there were any, are a revision of their own under the signature.
  const filled = prepared.length !== (await ctx.blobs.get(currentSha)).length;
  const revisions = [
    ...(filled ? [{ sha256: recipient.prepared_sha256, size: prepared.length, act: 'filled' }] : []),
    { sha256, size: uploaded.length, act: 'signed' },
  ];
  const finished = await commitAct(ctx, {
    envelopeId: session.envelopeId,
    recipientId: session.recipientId,
    documents: [{ documentId, from: currentSha, revisions }],
    values: Object.entries(preparedFrom.values ?? {}),
    record: {
      status: 'signed',
      method: 'dsc',
      client,
      details: () => ({
        certificate: {
          subject: signer?.subject ?? null,
          issuer: signer?.issuer ?? null,
          serial: signer?.serialNumber ?? null,
          email: signer?.email ?? null,
          cca_class: ccaClass(cms),
        },
        signing_time: signature.signingTime,
        pades_level: signature.padesLevel,
        ...trust.record,
      }),
    },
    at: iso(ctx.now()),
    stale: () => refuse('the document changed while it was being signed; fetch the prepared document again'),
    alongside: (trx) => storeValidationData(trx, recipient.id, trust),
  });
  return { status: 'signed', envelopeFinished: finished };
}

/** The signer certificate of the signature whose /Contents lies in the gap of `byteRange`. */
function signerCertificateOf(pdf: Buffer, byteRange: readonly number[]): Uint8Array {
  const [, a = 0, b = 0] = byteRange;
  const contents = Buffer.from(pdf.subarray(a + 1, b - 1).toString('latin1'), 'hex');
  const certificate = inspectCms(contents).signerCertificate;
  if (!certificate) throw refuse('the signature carries no signer certificate');
  return certificate;
}

/** CCA India class from certificate policies: the first policy 2.16.356.100.2.N (N a single digit 1-9). */
function ccaClass(der: Uint8Array): string | null {
  const match = policyOids(certInfo(der))
    .map((oid) => /^2\.16\.356\.100\.2\.([1-9])$/.exec(oid))
    .find((m) => m !== null);
  return match ? `Class ${match[1]}` : null;
}
