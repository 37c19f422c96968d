/**
 * What an instantiation keeps of its answer in its Idempotency-Key's row. The answer is the draft with its documents
 * and their fields, and the fields (~280 bytes of JSON each) are the template version's layout with this envelope's
 * ids (envelopes/field-rows.ts), which never changes. So the row keeps the answer without them, with the values
 * given, and a replay makes them again: the same fields, so the same answer, byte for byte once the route's
 * serializer has written it. A 20-field answer is ~7 KB, two overflow pages of the key's row on SQLite, written in
 * the request's commit and kept a day; without its fields it is ~1.5 KB and stays in its page.
 */
import type { Context } from '../context.js';
import { layoutRows, type PendingLayout } from '../envelopes/field-rows.js';
import { fieldView, type EnvelopeDocumentView, type EnvelopeView, type FieldView } from '../envelopes/views.js';
import { loadInstantiable, type Instantiable } from './instantiable.js';

const FORM = 'mohar.instantiated/v1';

interface StoredInstantiation {
  readonly form: typeof FORM;
  readonly envelope: Omit<EnvelopeView, 'documents'> & { documents: Omit<EnvelopeDocumentView, 'fields'>[] };
  readonly field_values: Record<string, string>;
}

/** An instantiated draft's `documents` (as the envelope JSON shows them) with the fields of its layout by reference. */
export function withLayoutFields<D extends { readonly document_id: string }>(
  documents: readonly D[],
  envelopeId: string,
  loaded: Instantiable,
  layout: PendingLayout,
): (D & { fields: FieldView[] })[] {
  const rows = layoutRows(envelopeId, loaded, layout);
  return documents.map((d) => ({ ...d, fields: rows.filter((f) => f.document_id === d.document_id).map(fieldView) }));
}

/** The key row's text for the answer `view` of an instantiation given `values`. */
export function storedInstantiation(view: EnvelopeView, values: Record<string, string>): string {
  const stored: StoredInstantiation = {
    form: FORM,
    envelope: { ...view, documents: view.documents.map(({ fields: _fields, ...document }) => document) },
    field_values: values,
  };
  return JSON.stringify(stored);
}

/** The answer again from what storedInstantiation kept; any other stored answer as it is. */
export async function expandInstantiation(ctx: Context, accountId: string, stored: unknown): Promise<unknown> {
  if (!isStoredInstantiation(stored)) return stored;
  const envelope = stored.envelope;
  if (envelope.template_id === null || envelope.template_version === null) return stored;
  const loaded = await loadInstantiable(ctx.db, accountId, envelope.template_id, envelope.template_version);
  const layout = { recipients: envelope.recipients.map((r) => r.recipient_id), values: stored.field_values };
  const documents = withLayoutFields(envelope.documents, envelope.id, loaded, layout);
  return { ...envelope, documents } satisfies EnvelopeView;
}

function isStoredInstantiation(value: unknown): value is StoredInstantiation {
  return typeof value === 'object' && value !== null && (value as { form?: unknown }).form === FORM;
}
