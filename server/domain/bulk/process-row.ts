/**
 * One row of a bulk send, made idempotent so that a crash, a retried job or a second instance resumes it
 * instead of repeating it:
 *  1. the draft, with the source's documents (shared, content-addressed) and the row's fields, in ONE
 *     commit (createEnvelope with DraftContents; the fields checked by the fields endpoint's own rules).
 *     (bulk_send_id, row_index) on the envelope is UNIQUE, so a second creation fails in its own commit
 *     (bulk_row_taken) and the existing envelope is used;
 *  2. sendEnvelope (a concurrent send of the same draft is envelope_not_draft: the row is sent).
 * A draft left by an older run that wrote it step by step is completed first (documents not yet attached,
 * fields replaced). The steps run under a claim on the row (claimed_by/claimed_until): a second worker
 * that finds the row claimed leaves it (processRow answers 'busy') and its job retries later, when the
 * claim is released or has expired. The row's outcome and the claim's release are one UPDATE. A domain
 * refusal (MoharError) fails the row with its code and message; anything else (a database outage) is
 * thrown, so the job retries the chunk.
 */
import { isMoharError, MoharError } from '../../../common/errors.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import type { StoredPdfInfo } from '../documents/documents.js';
import { attachDocument } from '../envelopes/attach-document.js';
import { createEnvelope, type DraftContents } from '../envelopes/create-envelope.js';
import type { EnvelopeInput } from '../envelopes/model.js';
import { checkedFieldRows, replaceFields } from '../envelopes/replace-fields.js';
import { sendEnvelope } from '../workflow/send-envelope.js';
import type { BulkSendsTable, RecipientsTable } from '../../storage/schema.js';
import { mergeFields, pairRecipients, type BulkRow } from './merge.js';
import type { SourceSnapshot } from './source.js';

/**
 * A row's claim lasts as long as a job's lease (MOHAR_JOB_LEASE_SECONDS): far beyond a normal row, and over soon after
 * a crash.
 */
export function rowClaimMs(ctx: Context): number {
  return ctx.config.jobLeaseSeconds * 1000;
}

export interface RowRef {
  readonly row_index: number;
  readonly input: string;
  /** The row's envelope when the row table knows it already (a resumed row). */
  readonly envelope_id?: string | null;
}

/** What every row of a batch shares: the source snapshot and its documents' page geometry (read once per chunk). */
export interface BatchPlan {
  readonly batch: BulkSendsTable;
  readonly source: SourceSnapshot;
  readonly infos: ReadonlyMap<string, StoredPdfInfo>;
}

type Outcome =
  | { status: 'sent'; envelopeId: string }
  | { status: 'failed'; envelopeId: string | null; error: { code: string; message: string } };

function envelopeInput(source: SourceSnapshot, row: BulkRow): EnvelopeInput {
  const optional = <K extends string, V>(key: K, value: V | null | undefined) =>
    value === null || value === undefined ? {} : { [key]: value };
  return {
    title: row.title ?? source.title,
    routing_order: source.routing_order,
    ...optional('external_id', row.external_id),
    ...optional('message', row.message ?? source.message),
    ...optional('expire_in_days', source.expire_in_days),
    ...optional('redirect_url', row.redirect_url ?? source.redirect_url),
    ...optional('metadata', row.metadata ?? source.metadata),
    recipients: pairRecipients(source, row.recipients),
  };
}

/** The source's documents and the row's fields (bound to the new recipients), written with the draft. */
function contentsOf(plan: BatchPlan, input: BulkRow): (envelopeId: string, at: string) => DraftContents {
  const merged = mergeFields(plan.source, input.field_values);
  return (envelopeId, at) => ({
    documents: plan.source.documents.map((d, i) => ({
      envelope_id: envelopeId,
      document_id: d.document_id,
      position: i + 1,
      created_at: at,
    })),
    fields: (recipients: readonly RecipientsTable[]) =>
      plan.source.documents.flatMap((d, i) => {
        const fields = merged[i]!.map((f) => ({ ...f.input, recipient_id: recipients[f.slot]!.id }));
        return checkedFieldRows(fields, recipients, plan.infos.get(d.document_id)!, envelopeId, d.document_id);
      }),
  });
}

async function rowEnvelope(ctx: Context, batchId: string, rowIndex: number) {
  return ctx.db
    .selectFrom('envelopes')
    .select(['id', 'status'])
    .where('bulk_send_id', '=', batchId)
    .where('row_index', '=', rowIndex)
    .executeTakeFirst();
}

/** The row's envelope: made now (complete, `fresh`), or the one an earlier run made. */
async function ensureEnvelope(
  ctx: Context,
  plan: BatchPlan,
  row: RowRef,
  input: BulkRow,
): Promise<{ id: string; status: string; fresh: boolean }> {
  const { batch, source } = plan;
  if (row.envelope_id) {
    const known = await rowEnvelope(ctx, batch.id, row.row_index);
    if (known) return { ...known, fresh: false };
  }
  const pin = source.kind === 'template' ? { template_id: source.id, template_version: source.version! } : undefined;
  try {
    const created = await createEnvelope(
      { ...ctx, mode: batch.mode ?? 'live' },
      batch.account_id,
      envelopeInput(source, input),
      pin,
      { bulk_send_id: batch.id, row_index: row.row_index },
      contentsOf(plan, input),
    );
    return { id: created.id, status: created.status, fresh: true };
  } catch (error) {
    if (!isMoharError(error, 'bulk_row_taken')) throw error;
    const existing = await rowEnvelope(ctx, batch.id, row.row_index);
    if (!existing) throw error;
    return { ...existing, fresh: false };
  }
}

/** A draft left by a run that built it step by step: its missing documents attached, its fields replaced. */
async function completeDraft(ctx: Context, plan: BatchPlan, envelopeId: string, input: BulkRow): Promise<void> {
  const accountId = plan.batch.account_id;
  const attached = new Set(
    (
      await ctx.db
        .selectFrom('envelope_documents')
        .select('document_id')
        .where('envelope_id', '=', envelopeId)
        .execute()
    ).map((d) => d.document_id),
  );
  for (const d of plan.source.documents) {
    if (attached.has(d.document_id)) continue;
    try {
      await attachDocument(ctx, accountId, envelopeId, { kind: 'workspace', documentId: d.document_id });
    } catch (error) {
      if (!isMoharError(error, 'document_already_attached')) throw error;
    }
  }
  const recipients = await ctx.db
    .selectFrom('recipients')
    .select('id')
    .where('envelope_id', '=', envelopeId)
    .orderBy('position')
    .execute();
  const merged = mergeFields(plan.source, input.field_values);
  for (const [index, d] of plan.source.documents.entries()) {
    const fields = merged[index]!.map((f) => ({ ...f.input, recipient_id: recipients[f.slot]!.id }));
    await replaceFields(ctx, accountId, envelopeId, d.document_id, fields);
  }
}

async function claim(ctx: Context, batchId: string, rowIndex: number, worker: string): Promise<boolean> {
  const now = ctx.now();
  const result = await ctx.db
    .updateTable('bulk_send_rows')
    .set({ claimed_by: worker, claimed_until: iso(new Date(now.getTime() + rowClaimMs(ctx))) })
    .where('bulk_send_id', '=', batchId)
    .where('row_index', '=', rowIndex)
    .where('status', 'in', ['pending', 'created'])
    .where((eb) =>
      eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', iso(now)), eb('claimed_by', '=', worker)]),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

async function release(ctx: Context, batchId: string, rowIndex: number, worker: string): Promise<void> {
  await ctx.db
    .updateTable('bulk_send_rows')
    .set({ claimed_by: null, claimed_until: null })
    .where('bulk_send_id', '=', batchId)
    .where('row_index', '=', rowIndex)
    .where('claimed_by', '=', worker)
    .execute();
}

/**
 * The outcome and the claim's release in one statement. A row canceled while its envelope was being made
 * is finished like any row with an envelope (cancel-bulk-send.ts).
 */
async function finishRow(
  ctx: Context,
  batchId: string,
  rowIndex: number,
  worker: string,
  outcome: Outcome,
): Promise<void> {
  await ctx.db
    .updateTable('bulk_send_rows')
    .set({
      status: outcome.status,
      envelope_id: outcome.envelopeId,
      error: outcome.status === 'failed' ? JSON.stringify(outcome.error) : null,
      claimed_by: null,
      claimed_until: null,
      updated_at: iso(ctx.now()),
    })
    .where('bulk_send_id', '=', batchId)
    .where('row_index', '=', rowIndex)
    .where('claimed_by', '=', worker)
    .where(
      'status',
      'in',
      outcome.status === 'failed' && outcome.envelopeId === null
        ? ['pending', 'created']
        : ['pending', 'created', 'canceled'],
    )
    .execute();
}

/**
 * Runs one row to sent or failed: 'done'. 'busy' when another worker holds the row's claim (a row that is
 * finished already, or was canceled before it was claimed, is 'done' with nothing to do).
 */
export async function processRow(ctx: Context, plan: BatchPlan, row: RowRef, worker: string): Promise<'done' | 'busy'> {
  const batchId = plan.batch.id;
  if (!(await claim(ctx, batchId, row.row_index, worker))) {
    const current = await ctx.db
      .selectFrom('bulk_send_rows')
      .select('status')
      .where('bulk_send_id', '=', batchId)
      .where('row_index', '=', row.row_index)
      .executeTakeFirstOrThrow();
    return current.status === 'pending' || current.status === 'created' ? 'busy' : 'done';
  }
  let outcome: Outcome;
  try {
    outcome = await work(ctx, plan, row);
  } catch (error) {
    await release(ctx, batchId, row.row_index, worker);
    throw error;
  }
  await finishRow(ctx, batchId, row.row_index, worker, outcome);
  return 'done';
}

async function work(ctx: Context, plan: BatchPlan, row: RowRef): Promise<Outcome> {
  const input = JSON.parse(row.input) as BulkRow;
  let envelope: { id: string; status: string; fresh: boolean } | undefined;
  try {
    envelope = await ensureEnvelope(ctx, plan, row, input);
    if (envelope.status === 'draft') {
      try {
        if (!envelope.fresh) await completeDraft(ctx, plan, envelope.id, input);
        await sendEnvelope(ctx, plan.batch.account_id, envelope.id);
      } catch (error) {
        // Sent meanwhile by another run of this row: that run did the work.
        if (!isMoharError(error, 'envelope_not_draft')) throw error;
      }
    }
    return { status: 'sent', envelopeId: envelope.id };
  } catch (error) {
    if (!(error instanceof MoharError)) throw error;
    return { status: 'failed', envelopeId: envelope?.id ?? null, error: { code: error.code, message: error.message } };
  }
}
