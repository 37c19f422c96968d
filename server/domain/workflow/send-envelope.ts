/**
 * POST /envelopes/{id}/send: checks the draft, turns every document's field layout into real AcroForm
 * fields (one incremental revision over the uploaded bytes, which stay its prefix), certifies the result
 * (a second revision), both in certify-document.ts, and starts routing.
 * The PDF work happens before the transaction, in the worker pool; the transaction re-checks the draft and switches
 * state.
 */
import { MoharError, type ErrorItem } from '../../../common/errors.js';
import type { FormFieldLayout } from '../../../pdf/index.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import { checkDscLimits } from '../envelopes/dsc-rules.js';
import { assertAadhaarAvailable } from '../aadhaar/availability.js';
import { findDraftEnvelope } from '../envelopes/find-envelope.js';
import { FIELD_TYPES } from '../../../common/fields.js';
import { envelopeStatus, type EnvelopeStatusView } from '../envelopes/envelope-status.js';
import { recordEvent } from './events.js';
import { currentTurn, isActor } from './routing.js';
import { envelopeSummary } from './summaries.js';
import { mailTurn } from './notify.js';
import { enqueue } from '../../jobs/definition.js';
import { EXPIRE_JOB } from './job-kinds.js';
import { prepareDocument } from './certify-document.js';
import { readRevision, storeRevision } from '../documents/recent-revisions.js';
import { envelopeFieldRows, writeLayoutRows } from '../envelopes/field-rows.js';

interface PreparedDocument {
  readonly documentId: string;
  readonly originalSha: string;
  readonly originalSize: number;
  /** The upload with Mohar's form fields (the upload itself when it needed none). */
  readonly sha256: string;
  readonly size: number;
  readonly changed: boolean;
  /** The certification revision over the prepared bytes; null when skipped. */
  readonly certified: { readonly sha256: string; readonly size: number } | null;
  readonly skipped: string | null;
}

export async function sendEnvelope(ctx: Context, accountId: string, envelopeId: string): Promise<EnvelopeStatusView> {
  const envelope = await findDraftEnvelope(ctx, accountId, envelopeId);
  const [recipients, documents, fields] = await Promise.all([
    ctx.db.selectFrom('recipients').selectAll().where('envelope_id', '=', envelopeId).orderBy('position').execute(),
    ctx.db
      .selectFrom('envelope_documents')
      .innerJoin('documents', 'documents.id', 'envelope_documents.document_id')
      .select(['documents.id', 'documents.sha256'])
      .where('envelope_id', '=', envelopeId)
      .orderBy('position')
      .execute(),
    envelopeFieldRows(ctx.db, envelopeId),
  ]);

  const problems: ErrorItem[] = [];
  if (documents.length === 0) problems.push({ path: '/documents', code: 'no_document', message: 'attach a PDF first' });
  if (!recipients.some(isActor)) {
    problems.push({ path: '/recipients', code: 'no_actor', message: 'add at least one signer, reviewer or approver' });
  }
  for (const r of recipients.filter((x) => x.role === 'signer')) {
    if (!fields.some((f) => f.recipient_id === r.id && f.field_type === FIELD_TYPES.SIGNATURE)) {
      problems.push({
        path: '/fields',
        code: 'signature_field_missing',
        message: `signer ${r.name} <${r.email}> has no Signature field (field_type 1)`,
      });
    }
  }
  if (problems.length > 0) {
    throw new MoharError(
      'envelope_incomplete',
      `the envelope cannot be sent: ${problems.map((p) => p.message).join('; ')}`,
      { errors: problems },
    );
  }
  assertAadhaarAvailable(ctx.config, recipients, (index) => `/recipients/${index}/signature_method`, envelope.mode);
  checkDscLimits({ recipients, documentCount: documents.length });

  // Prepare (and certify) every document outside the transaction: CPU-bound PDF work.
  const now = ctx.now();
  const prepared: PreparedDocument[] = [];
  // USB DSC signers sign with their own tool: their fields are locked by the completion lock (prepare-form.ts).
  const dscSigners = new Set(recipients.filter((r) => r.signature_method === 'dsc').map((r) => r.id));
  for (const document of documents) {
    const layout: FormFieldLayout[] = fields
      .filter((f) => f.document_id === document.id && f.pdf_signature_field === null)
      .map((f) => ({
        type: f.field_type,
        page: f.page_number,
        rect: { x: f.x, y: f.y, width: f.width, height: f.height },
        recipientId: f.recipient_id,
        id: f.id,
        ...(f.label === null ? {} : { label: f.label }),
        ...(f.value === null ? {} : { value: f.value }),
        ...(f.options === null ? {} : { options: JSON.parse(f.options) as string[] }),
        required: f.required === 1,
        ...(dscSigners.has(f.recipient_id) ? { lockOnSigning: false } : {}),
      }));
    const original = await readRevision(ctx, document.sha256);
    // The upload's own signature fields that recipients sign in (USB DSC): theirs, not the sender's to lock.
    const held = fields
      .filter((f) => f.document_id === document.id && f.pdf_signature_field !== null)
      .map((f) => f.pdf_signature_field!);
    const { bytes, certification } = await prepareDocument(ctx, original, layout, now, envelope.mode, held);
    prepared.push({
      documentId: document.id,
      originalSha: document.sha256,
      originalSize: original.length,
      sha256: await storeRevision(ctx, bytes),
      size: bytes.length,
      changed: layout.length > 0,
      certified: certification.certified
        ? { sha256: await storeRevision(ctx, certification.bytes), size: certification.bytes.length }
        : null,
      skipped: certification.certified ? null : certification.skipped,
    });
  }

  const at = iso(now);
  await ctx.db.transaction().execute(async (trx) => {
    const moved = await trx
      .updateTable('envelopes')
      .set({
        status: 'sent',
        sent_at: at,
        updated_at: at,
        expires_at:
          envelope.expire_in_days === null ? null : iso(new Date(now.getTime() + envelope.expire_in_days * 86_400_000)),
      })
      .where('id', '=', envelopeId)
      .where('status', '=', 'draft')
      // A layout by reference read above and written as rows since would be written twice.
      .where('pending_layout', envelope.pending_layout == null ? 'is' : '=', envelope.pending_layout ?? null)
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1) {
      throw new MoharError('envelope_not_draft', 'the envelope was sent or changed meanwhile');
    }
    // The fields of a layout by reference become rows with the send: the acts write values into them.
    if (envelope.pending_layout != null) await writeLayoutRows(trx, envelopeId, fields);
    for (const p of prepared) {
      await trx
        .insertInto('document_revisions')
        .values({
          envelope_id: envelopeId,
          document_id: p.documentId,
          seq: 1,
          sha256: p.originalSha,
          size: p.originalSize,
          act: 'uploaded',
          recipient_id: null,
          created_at: at,
        })
        .execute();
      let seq = 1;
      if (p.changed) {
        await trx
          .insertInto('document_revisions')
          .values({
            envelope_id: envelopeId,
            document_id: p.documentId,
            seq: ++seq,
            sha256: p.sha256,
            size: p.size,
            act: 'prepared',
            recipient_id: null,
            created_at: at,
          })
          .execute();
      }
      if (p.certified) {
        await trx
          .insertInto('document_revisions')
          .values({
            envelope_id: envelopeId,
            document_id: p.documentId,
            seq: ++seq,
            sha256: p.certified.sha256,
            size: p.certified.size,
            act: 'certified',
            recipient_id: null,
            created_at: at,
          })
          .execute();
      }
      await trx
        .updateTable('envelope_documents')
        .set({
          current_sha256: p.certified?.sha256 ?? p.sha256,
          certified: p.certified ? 1 : 0,
          certification_skipped: p.skipped,
        })
        .where('envelope_id', '=', envelopeId)
        .where('document_id', '=', p.documentId)
        .execute();
    }
    const turn = new Set(
      currentTurn(
        recipients.map((r) => ({ ...r, status: 'waiting' })),
        envelope.routing_order,
      ),
    );
    for (const r of recipients) {
      await trx
        .updateTable('recipients')
        .set({ status: turn.has(r.id) ? 'active' : 'waiting' })
        .where('id', '=', r.id)
        .execute();
    }
    const sent = await trx.selectFrom('envelopes').selectAll().where('id', '=', envelopeId).executeTakeFirstOrThrow();
    await mailTurn(
      trx,
      ctx,
      sent,
      recipients.filter((r) => turn.has(r.id)),
      'invitation',
    );
    if (sent.expires_at) {
      await enqueue(
        trx,
        EXPIRE_JOB,
        { envelope_id: envelopeId },
        { runAt: new Date(sent.expires_at), dedupeKey: `expire:${envelopeId}`, accountId, now },
      );
    }
    await recordEvent(
      trx,
      accountId,
      envelopeId,
      'envelope.sent',
      { envelope: envelopeSummary({ ...envelope, status: 'sent' }) },
      at,
      {
        type: 'api_key',
        details: {
          documents: prepared.map((p) => ({
            document_id: p.documentId,
            uploaded_sha256: p.originalSha,
            prepared_sha256: p.sha256,
            certified: p.certified !== null,
            ...(p.certified ? { certified_sha256: p.certified.sha256 } : { certification_skipped: p.skipped }),
          })),
        },
      },
    );
  });
  return envelopeStatus(ctx, accountId, envelopeId);
}
