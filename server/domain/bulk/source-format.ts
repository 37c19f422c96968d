/**
 * GET /bulk-sends/source-format: what a CSV (or a JSON row) for a source may hold, read by the same
 * loadSource as POST /bulk-sends (so the same 404 and 409 bulk_source_state): the recipient slots in the
 * order rows fill them, the merge fields (fields that take a value and have a label or field_key), and a
 * sample CSV made by common/bulk-csv.ts, the module the CLI and the console map CSV with.
 */
import {
  MERGE_FIELD_TYPES,
  sampleCsv,
  type BulkCsvFormat,
  type BulkCsvMergeField,
  type BulkCsvSlot,
} from '../../../common/bulk-csv.js';
import type { Context } from '../context.js';
import { loadSource, type SourceRef, type SourceSnapshot } from './source.js';

export interface BulkSourceFormat extends BulkCsvFormat {
  source: { kind: 'envelope' | 'template'; id: string; version: number | null; title: string };
  recipient_slots: BulkCsvSlot[];
  merge_fields: BulkCsvMergeField[];
  columns: string[];
  sample_csv: string;
}

function isMergeType(type: number): type is keyof typeof MERGE_FIELD_TYPES {
  return Object.hasOwn(MERGE_FIELD_TYPES, type);
}

/** One entry per key: a key names every field that carries it, and the first such field describes it. */
function mergeFieldsOf(source: SourceSnapshot): BulkCsvMergeField[] {
  const byKey = new Map<string, BulkCsvMergeField>();
  for (const f of source.documents.flatMap((d) => d.fields)) {
    const [key, ...aliases] = f.keys;
    if (key === undefined || byKey.has(key) || !isMergeType(f.input.field_type)) continue;
    byKey.set(key, {
      key,
      aliases,
      label: f.input.label ?? null,
      type: MERGE_FIELD_TYPES[f.input.field_type],
      field_type: f.input.field_type,
      slot: f.slot + 1,
      required: f.input.required ?? f.input.field_type !== 9,
      options: f.input.options ?? null,
    });
  }
  return [...byKey.values()];
}

export function formatOf(source: SourceSnapshot): BulkSourceFormat {
  const recipient_slots = source.slots.map((s, i) => ({
    slot: i + 1,
    label: s.label ?? null,
    role: s.role,
    signature_method: s.signature_method,
    sequence: s.sequence,
    role_key: s.role_key,
  }));
  const format = { recipient_slots, merge_fields: mergeFieldsOf(source) };
  const sample = sampleCsv(format);
  return {
    source: { kind: source.kind, id: source.id, version: source.version, title: source.title },
    ...format,
    columns: sample.columns,
    sample_csv: sample.text,
  };
}

export async function bulkSourceFormat(ctx: Context, accountId: string, ref: SourceRef): Promise<BulkSourceFormat> {
  return formatOf(await loadSource(ctx, accountId, ref));
}
