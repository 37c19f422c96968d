/**
 * Every row checked before anything is queued, and every problem reported at once by the row's 0-based
 * index: recipient count, recipient rules (role/method, DSC), unknown merge fields, values that break a
 * field's rules (the fields endpoint's own validateFieldLayout), external_id duplicated in the batch or
 * used already, redirect_url, metadata size. One bad row refuses the whole batch (invalid_rows).
 */
import { setImmediate } from 'node:timers/promises';
import { MoharError, type ErrorItem } from '../../../common/errors.js';
import type { Context } from '../context.js';
import { MAX_METADATA_BYTES } from '../envelopes/create-envelope.js';
import { checkDscLimits } from '../envelopes/dsc-rules.js';
import { validateFieldLayout } from '../envelopes/field-layout.js';
import { normalizeRecipient } from '../envelopes/recipients.js';
import { assertAadhaarAvailable } from '../aadhaar/availability.js';
import type { RecipientsTable } from '../../storage/schema.js';
import { mergeFields, mergeKeys, pairRecipients, type BulkRow } from './merge.js';
import { documentInfos, type SourceSnapshot } from './source.js';

const LOOKUP_CHUNK = 500;
const YIELD_EVERY = 250;

function problem(index: number, path: string, code: string, message: string): ErrorItem {
  return { index, path: `/rows/${index}${path}`, code, message };
}

/** A refusal of a recipient check as a row problem; anything else is a bug, not a bad row. */
function messageOf(error: unknown): { code: string; message: string } {
  if (!(error instanceof MoharError)) throw error;
  return { code: error.code, message: error.message };
}

function checkRow(
  source: SourceSnapshot,
  infos: Awaited<ReturnType<typeof documentInfos>>,
  keys: Set<string>,
  row: BulkRow,
  index: number,
  aadhaar: (recipients: readonly RecipientsTable[]) => void,
): ErrorItem[] {
  const errors: ErrorItem[] = [];
  if (row.recipients.length !== source.slots.length) {
    return [
      problem(
        index,
        '/recipients',
        'wrong_recipient_count',
        `the source has ${source.slots.length} recipient(s); this row has ${row.recipients.length}`,
      ),
    ];
  }
  if (
    row.redirect_url !== undefined &&
    !/^https?:$/.test(URL.canParse(row.redirect_url) ? new URL(row.redirect_url).protocol : '')
  ) {
    errors.push(problem(index, '/redirect_url', 'invalid_url', 'redirect_url must be an http(s) URL'));
  }
  if (row.metadata !== undefined && Buffer.byteLength(JSON.stringify(row.metadata)) > MAX_METADATA_BYTES) {
    errors.push(problem(index, '/metadata', 'too_large', `metadata is larger than ${MAX_METADATA_BYTES} bytes`));
  }
  const paired = pairRecipients(source, row.recipients);
  const recipients: RecipientsTable[] = [];
  paired.forEach((r, slot) => {
    try {
      recipients.push(normalizeRecipient(r, source.routing_order, recipients, `row-${index}`, slot + 1, '', slot));
    } catch (error) {
      const { code, message } = messageOf(error);
      errors.push(problem(index, `/recipients/${slot}`, code, message));
    }
  });
  if (recipients.length !== paired.length) return errors;
  try {
    // Aadhaar signers only where eSign is available for this data (aadhaar/availability.ts): refused here, not in the
    // fan-out.
    aadhaar(recipients);
  } catch (error) {
    const { code, message } = messageOf(error);
    const slot = recipients.findIndex((r) => r.signature_method === 'aadhaar');
    errors.push(problem(index, `/recipients/${slot}/signature_method`, code, message));
  }
  try {
    checkDscLimits({ recipients, documentCount: source.documents.length });
  } catch (error) {
    const { code, message } = messageOf(error);
    errors.push(problem(index, '/recipients', `dsc_rules:${code}`, message));
  }
  const values = row.field_values ?? {};
  for (const key of Object.keys(values).filter((k) => !keys.has(k))) {
    errors.push(
      problem(
        index,
        `/field_values/${key}`,
        'unknown_merge_field',
        `no field of the source has the label or field_key "${key}"`,
      ),
    );
  }
  mergeFields(source, values).forEach((fields, d) => {
    const info = infos.get(source.documents[d]!.document_id)!;
    const layout = fields.map((f) => ({ ...f.input, recipient_id: recipients[f.slot]!.id }));
    const result = validateFieldLayout(layout, recipients, info);
    if (result.ok) return;
    for (const e of result.errors) {
      const key = e.index === undefined ? null : (fields[e.index]?.key ?? null);
      errors.push(
        problem(
          index,
          key === null ? `/documents/${d}/fields/${e.index ?? ''}` : `/field_values/${key}`,
          e.code ?? 'invalid_field',
          e.message,
        ),
      );
    }
  });
  return errors;
}

async function externalIdProblems(ctx: Context, accountId: string, rows: readonly BulkRow[]): Promise<ErrorItem[]> {
  const errors: ErrorItem[] = [];
  const seen = new Map<string, number>();
  rows.forEach((row, index) => {
    if (row.external_id === undefined) return;
    const first = seen.get(row.external_id);
    if (first === undefined) seen.set(row.external_id, index);
    else {
      errors.push(
        problem(
          index,
          '/external_id',
          'duplicate_external_id',
          `external_id "${row.external_id}" is also the external_id of row ${first}`,
        ),
      );
    }
  });
  const ids = [...seen.keys()];
  for (let at = 0; at < ids.length; at += LOOKUP_CHUNK) {
    const used = await ctx.db
      .selectFrom('envelopes')
      .select('external_id')
      .where('account_id', '=', accountId)
      .$if(ctx.mode !== undefined, (q) => q.where('mode', '=', ctx.mode!))
      .where('external_id', 'in', ids.slice(at, at + LOOKUP_CHUNK))
      .execute();
    for (const u of used) {
      const index = seen.get(u.external_id!)!;
      errors.push(
        problem(
          index,
          '/external_id',
          'external_id_in_use',
          `an envelope with external_id "${u.external_id}" exists already in this account`,
        ),
      );
    }
  }
  return errors;
}

export async function validateRows(
  ctx: Context,
  accountId: string,
  source: SourceSnapshot,
  rows: readonly BulkRow[],
): Promise<void> {
  const max = ctx.config.bulkMaxRows;
  if (rows.length > max) {
    throw new MoharError('invalid_rows', `${rows.length} rows; at most ${max} per bulk send (MOHAR_BULK_MAX_ROWS)`, {
      errors: [{ path: '/rows', code: 'too_many_rows', message: `at most ${max} rows` }],
    });
  }
  const infos = await documentInfos(ctx, accountId, source);
  const keys = mergeKeys(source);
  const errors: ErrorItem[] = [];
  const aadhaar = (recipients: readonly RecipientsTable[]) =>
    assertAadhaarAvailable(ctx.config, recipients, undefined, ctx.mode ?? 'live');
  for (let index = 0; index < rows.length; index++) {
    // 10,000 rows take a few hundred ms: let other requests (status polls) in between.
    if (index > 0 && index % YIELD_EVERY === 0) await setImmediate();
    errors.push(...checkRow(source, infos, keys, rows[index]!, index, aadhaar));
  }
  errors.push(...(await externalIdProblems(ctx, accountId, rows)));
  if (errors.length === 0) return;
  errors.sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
  const bad = new Set(errors.map((e) => e.index)).size;
  throw new MoharError(
    'invalid_rows',
    `${bad} of ${rows.length} row(s) are not valid; nothing was queued. Row ${errors[0]!.index}: ${errors[0]!.path} ${errors[0]!.message}`,
    { errors },
  );
}
