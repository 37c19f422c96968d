/**
 * After a recipient changes on a draft, the fields already placed must still pass the rules of
 * PUT …/fields (a cc or a reviewer has no fields, an approver no Signature, a USB DSC signer exactly one Signature
 * and no Initial, pdf_signature_field only for DSC). Documents without fields are checked when their
 * fields are put.
 */
import type { Kysely } from 'kysely';
import { MoharError } from '../../../common/errors.js';
import type { Database, FieldsTable } from '../../storage/schema.js';
import { storedInfo } from '../documents/documents.js';
import { validateFieldLayout, type FieldInput, type LayoutRecipient } from './field-layout.js';
import { envelopeFieldRows } from './field-rows.js';

/** A stored field as the fields endpoint would have received it. */
function asInput(f: FieldsTable): FieldInput {
  const placement =
    f.pdf_signature_field === null
      ? { page_number: f.page_number, x: f.x, y: f.y, width: f.width, height: f.height }
      : { pdf_signature_field: f.pdf_signature_field };
  return {
    recipient_id: f.recipient_id,
    field_type: f.field_type,
    ...placement,
    ...(f.label === null ? {} : { label: f.label }),
    ...(f.value === null ? {} : { value: f.value }),
    ...(f.options === null ? {} : { options: JSON.parse(f.options) as string[] }),
    required: f.required === 1,
    editable: f.editable === 1,
  };
}

export async function recheckLayouts(
  trx: Kysely<Database>,
  envelopeId: string,
  recipients: readonly LayoutRecipient[],
): Promise<void> {
  const documents = await trx
    .selectFrom('envelope_documents')
    .innerJoin('documents', 'documents.id', 'envelope_documents.document_id')
    .select(['documents.id', 'documents.filename', 'documents.info'])
    .where('envelope_documents.envelope_id', '=', envelopeId)
    .execute();
  const fields = await envelopeFieldRows(trx, envelopeId);
  for (const document of documents) {
    const own = fields.filter((f) => f.document_id === document.id);
    if (own.length === 0) continue;
    const result = validateFieldLayout(own.map(asInput), recipients, storedInfo(document));
    if (!result.ok) {
      const first = result.errors[0]!;
      throw new MoharError(
        'invalid_field_layout',
        `the change breaks the fields placed on ${document.filename} (${document.id}): ${first.message}; change or remove those fields first (PUT …/documents/${document.id}/fields)`,
        {
          errors: result.errors.map((e) => ({ ...e, path: `/documents/${document.id}${e.path ?? ''}` })),
        },
      );
    }
  }
}
