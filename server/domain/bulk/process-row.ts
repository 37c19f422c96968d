/**
 * One row of a bulk send, made idempotent step by step so that a crash, a retried job or a second
 * instance resumes it instead of repeating it:
 *  1. the envelope: createEnvelope with (bulk_send_id, row_index) on the row, UNIQUE together, so a
 *     second creation fails in its own transaction (bulk_row_taken) and the existing envelope is used;
 *  2. the documents (only those not yet attached) and the fields (replaceFields replaces the whole layout);
 *  3. sendEnvelope (a concurrent send of the same draft is envelope_not_draft: the row is sent).
 * The steps run under a claim on the row (claimed_by/claimed_until): a second worker that finds the row
 * claimed leaves it (processRow answers 'busy') and its job retries later, when the claim is released or
 * has expired. A domain refusal (MoharError) fails the row with its code and message; anything else (a
 * database outage) is thrown, so the job retries the chunk.
 */
import { isMoharError, MoharError } from '../../../common/errors.js';
import type { Context } from '../context.js';
import { iso } from '../context.js';
import { attachDocument } from '../envelopes/attach-document.js';
import { createEnvelope } from '../envelopes/create-envelope.js';
import type { EnvelopeInput } from '../envelopes/model.js';
import { replaceFields } from '../envelopes/replace-fields.js';
import { sendEnvelope } from '../workflow/send-envelope.js';
import type { BulkSendsTable } from '../../storage/schema.js';
import { mergeFields, pairRecipients, type BulkRow } from './merge.js';
import type { SourceSnapshot } from './source.js';

/** A claim outlives any normal row (well under a second) and expires after a crash. */
export const ROW_CLAIM_MS = 60_000;

export interface RowRef {
  readonly row_index: number;
  readonly input: string;
}

function envelopeInput(source: SourceSnapshot, row: BulkRow): EnvelopeInput {
  const optional = <K extends string, V>(key: K, value: V | null | undefined) => (value === null || value === undefined ? {} : { [key]: value });
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

async function rowEnvelope(ctx: Context, batchId: string, rowIndex: number) {
  return ctx.db.selectFrom('envelopes').select(['id', 'status']).where('bulk_send_id', '=', batchId).where('row_index', '=', rowIndex).executeTakeFirst();
}

async function setRow(ctx: Context, batchId: string, rowIndex: number, change: { status: string; envelope_id?: string; error?: string | null }, onlyFrom: readonly string[]): Promise<boolean> {
  const result = await ctx.db.updateTable('bulk_send_rows')
    .set({ ...change, updated_at: iso(ctx.now()) })
    .where('bulk_send_id', '=', batchId).where('row_index', '=', rowIndex).where('status', 'in', [...onlyFrom])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Creates the row's envelope unless it exists; undefined when the row was canceled before that. */
async function ensureEnvelope(ctx: Context, batch: BulkSendsTable, source: SourceSnapshot, row: RowRef, input: BulkRow): Promise<{ id: string; status: string } | undefined> {
  const existing = await rowEnvelope(ctx, batch.id, row.row_index);
  if (existing) return existing;
  const current = await ctx.db.selectFrom('bulk_send_rows').select('status').where('bulk_send_id', '=', batch.id).where('row_index', '=', row.row_index).executeTakeFirstOrThrow();
  if (current.status !== 'pending') return undefined;
  const pin = source.kind === 'template' ? { template_id: source.id, template_version: source.version! } : undefined;
  try {
    const created = await createEnvelope(ctx, batch.account_id, envelopeInput(source, input), pin, { bulk_send_id: batch.id, row_index: row.row_index });
    return { id: created.id, status: created.status };
  } catch (error) {
    if (isMoharError(error, 'bulk_row_taken')) return rowEnvelope(ctx, batch.id, row.row_index);
    throw error;
  }
}

async function buildAndSend(ctx: Context, accountId: string, source: SourceSnapshot, envelopeId: string, input: BulkRow): Promise<void> {
  const attached = new Set((await ctx.db.selectFrom('envelope_documents').select('document_id').where('envelope_id', '=', envelopeId).execute()).map((d) => d.document_id));
  for (const d of source.documents) {
    if (attached.has(d.document_id)) continue;
    try {
      await attachDocument(ctx, accountId, envelopeId, { kind: 'workspace', documentId: d.document_id });
    } catch (error) {
      if (!isMoharError(error, 'document_already_attached')) throw error;
    }
  }
  const recipients = await ctx.db.selectFrom('recipients').select('id').where('envelope_id', '=', envelopeId).orderBy('position').execute();
  const merged = mergeFields(source, input.field_values);
  for (const [index, d] of source.documents.entries()) {
    const fields = merged[index]!.map((f) => ({ ...f.input, recipient_id: recipients[f.slot]!.id }));
    await replaceFields(ctx, accountId, envelopeId, d.document_id, fields);
  }
  await sendEnvelope(ctx, accountId, envelopeId);
}

async function claim(ctx: Context, batchId: string, rowIndex: number, worker: string): Promise<boolean> {
  const now = ctx.now();
  const result = await ctx.db.updateTable('bulk_send_rows')
    .set({ claimed_by: worker, claimed_until: iso(new Date(now.getTime() + ROW_CLAIM_MS)) })
    .where('bulk_send_id', '=', batchId).where('row_index', '=', rowIndex).where('status', 'in', ['pending', 'created'])
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', iso(now)), eb('claimed_by', '=', worker)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

async function release(ctx: Context, batchId: string, rowIndex: number, worker: string): Promise<void> {
  await ctx.db.updateTable('bulk_send_rows').set({ claimed_by: null, claimed_until: null })
    .where('bulk_send_id', '=', batchId).where('row_index', '=', rowIndex).where('claimed_by', '=', worker).execute();
}

/**
 * Runs one row to sent or failed (or leaves it canceled): 'done'. 'busy' when another worker holds the
 * row's claim (or it is finished already and nothing was to do, which is also 'done').
 */
export async function processRow(ctx: Context, batch: BulkSendsTable, source: SourceSnapshot, row: RowRef, worker: string): Promise<'done' | 'busy'> {
  if (!(await claim(ctx, batch.id, row.row_index, worker))) {
    const current = await ctx.db.selectFrom('bulk_send_rows').select('status').where('bulk_send_id', '=', batch.id).where('row_index', '=', row.row_index).executeTakeFirstOrThrow();
    return current.status === 'pending' || current.status === 'created' ? 'busy' : 'done';
  }
  try {
    await work(ctx, batch, source, row);
  } finally {
    await release(ctx, batch.id, row.row_index, worker);
  }
  return 'done';
}

async function work(ctx: Context, batch: BulkSendsTable, source: SourceSnapshot, row: RowRef): Promise<void> {
  const input = JSON.parse(row.input) as BulkRow;
  let envelope: { id: string; status: string } | undefined;
  try {
    envelope = await ensureEnvelope(ctx, batch, source, row, input);
    if (!envelope) return;
    await setRow(ctx, batch.id, row.row_index, { status: 'created', envelope_id: envelope.id }, ['pending', 'canceled']);
    if (envelope.status === 'draft') {
      try {
        await buildAndSend(ctx, batch.account_id, source, envelope.id, input);
      } catch (error) {
        // Sent meanwhile by another run of this row: that run did the work.
        if (!isMoharError(error, 'envelope_not_draft')) throw error;
      }
    }
    await setRow(ctx, batch.id, row.row_index, { status: 'sent', error: null }, ['created']);
  } catch (error) {
    if (!(error instanceof MoharError)) throw error;
    await setRow(ctx, batch.id, row.row_index, { status: 'failed', ...(envelope ? { envelope_id: envelope.id } : {}), error: JSON.stringify({ code: error.code, message: error.message }) }, ['pending', 'created']);
  }
}
