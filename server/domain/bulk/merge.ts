/**
 * One row applied to the source snapshot: its recipients replace the source's slots one for one (both
 * ordered by sequence, then order), and its field_values become pre-assigned values of the fields they
 * name. Used twice with the same result: to validate every row before anything is queued, and to build
 * the row's envelope in the fan-out job.
 */
import type { FieldInput } from '../envelopes/field-layout.js';
import type { RecipientInput } from '../envelopes/model.js';
import type { SourceSnapshot } from './source.js';

export type FieldValue = string | number | boolean;

export interface BulkRow {
  external_id?: string;
  title?: string;
  message?: string;
  redirect_url?: string;
  metadata?: Record<string, unknown>;
  recipients: RecipientInput[];
  field_values?: Record<string, FieldValue>;
}

/** The row's recipients in slot order; role, method and sequence default to the slot's. */
export function pairRecipients(source: SourceSnapshot, recipients: readonly RecipientInput[]): RecipientInput[] {
  const ordered = recipients
    .map((r, i) => ({ r, i, sequence: r.sequence ?? source.slots[i]?.sequence ?? i + 1 }))
    .sort((a, b) => a.sequence - b.sequence || a.i - b.i);
  return ordered.map(({ r, sequence }, slotIndex) => {
    const slot = source.slots[slotIndex]!;
    const role = r.role ?? slot.role;
    // A row that changes the role without a method gets that role's default, not the slot's method.
    const method = r.signature_method ?? (r.role === undefined ? slot.signature_method : undefined);
    return {
      name: r.name,
      email: r.email,
      role,
      ...(method === undefined ? {} : { signature_method: method }),
      sequence,
    };
  });
}

/** Every name field_values may use, mapped to the fields it fills. */
export function mergeKeys(source: SourceSnapshot): Set<string> {
  return new Set(source.documents.flatMap((d) => d.fields.flatMap((f) => f.keys)));
}

export interface MergedField {
  readonly slot: number;
  /** The field_values key that set its value, if any. */
  readonly key: string | null;
  readonly input: Omit<FieldInput, 'recipient_id'>;
}

/** The source's fields per document, with the row's values applied. */
export function mergeFields(
  source: SourceSnapshot,
  values: Readonly<Record<string, FieldValue>> = {},
): MergedField[][] {
  return source.documents.map((d) =>
    d.fields.map((f) => {
      const key = f.keys.find((k) => Object.hasOwn(values, k)) ?? null;
      return { slot: f.slot, key, input: key === null ? f.input : { ...f.input, value: String(values[key]) } };
    }),
  );
}
