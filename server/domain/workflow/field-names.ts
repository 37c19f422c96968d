/** The PDF form field behind each envelope field: an existing signature field, or one Mohar adds when sending. */
import { moharFieldName } from '../../../pdf/index.js';
import type { FieldsTable } from '../../storage/schema.js';

export function pdfFieldName(field: Pick<FieldsTable, 'id' | 'recipient_id' | 'pdf_signature_field'>): string {
  return field.pdf_signature_field ?? moharFieldName(field.recipient_id, field.id);
}
