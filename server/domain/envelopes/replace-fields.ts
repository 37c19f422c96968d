/** PUT /envelopes/{id}/documents/{document_id}/fields: replace the whole layout of one document on a draft. */
import { MoharError } from '../../../common/errors.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import { newId } from '../ids.js';
import { storedInfo } from '../documents/documents.js';
import { findDraftEnvelope } from './find-envelope.js';
import { validateFieldLayout, type FieldInput, type LayoutDocument, type LayoutRecipient } from './field-layout.js';
import type { FieldsTable } from '../../storage/schema.js';
import { fieldView, type FieldView } from './views.js';
import { fieldColumns } from './field-columns.js';
import { materializeLayout } from './field-rows.js';

export interface ReplacedFields {
  envelope_id: string;
  document_id: string;
  fields: FieldView[];
}

export async function replaceFields(
  ctx: Context,
  accountId: string,
  envelopeId: string,
  documentId: string,
  fields: FieldInput[],
): Promise<ReplacedFields> {
  return ctx.db.transaction().execute(async (trx) => {
    await findDraftEnvelope({ ...ctx, db: trx }, accountId, envelopeId);
    // The other documents' fields of a layout by reference must stay as they are: written as rows first.
    await materializeLayout(trx, envelopeId);
    const document = await trx
      .selectFrom('envelope_documents')
      .innerJoin('documents', 'documents.id', 'envelope_documents.document_id')
      .select(['documents.id', 'documents.info'])
      .where('envelope_documents.envelope_id', '=', envelopeId)
      .where('envelope_documents.document_id', '=', documentId)
      .executeTakeFirst();
    if (!document) {
      throw new MoharError('document_not_found', `document ${documentId} is not attached to envelope ${envelopeId}`);
    }
    const recipients = await trx
      .selectFrom('recipients')
      .select(['id', 'role', 'signature_method', 'name'])
      .where('envelope_id', '=', envelopeId)
      .execute();
    const rows = checkedFieldRows(fields, recipients, storedInfo(document), envelopeId, documentId);
    await trx
      .deleteFrom('fields')
      .where('envelope_id', '=', envelopeId)
      .where('document_id', '=', documentId)
      .execute();
    if (rows.length > 0) await trx.insertInto('fields').values(rows).execute();
    await trx
      .updateTable('envelopes')
      .set({ updated_at: iso(ctx.now()) })
      .where('id', '=', envelopeId)
      .execute();
    return { envelope_id: envelopeId, document_id: documentId, fields: rows.map(fieldView) };
  });
}

/**
 * The field rows of one document after the layout rules of this endpoint, or invalid_field_layout with
 * every problem. Also used when a template is instantiated (domain/templates/instantiate.ts).
 */
export function checkedFieldRows(
  fields: readonly FieldInput[],
  recipients: readonly LayoutRecipient[],
  info: LayoutDocument,
  envelopeId: string,
  documentId: string,
): FieldsTable[] {
  const result = validateFieldLayout(fields, recipients, info);
  if (!result.ok) {
    const first = result.errors[0]!;
    const where = first.index === undefined ? '' : `field ${first.index}: `;
    throw new MoharError(
      'invalid_field_layout',
      `${result.errors.length} problem(s) in the field layout; ${where}${first.message}`,
      { errors: result.errors },
    );
  }
  return result.fields.map((f, position) => ({
    // Time-ordered ids (UUID v7): a layout writes many rows at once, appended at the index's right edge (ids.ts).
    id: newId(),
    envelope_id: envelopeId,
    document_id: documentId,
    recipient_id: f.recipient_id,
    ...fieldColumns(f, position),
  }));
}
