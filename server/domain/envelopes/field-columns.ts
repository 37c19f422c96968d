/**
 * A placed field's row columns, shared by the fields endpoint (replace-fields.ts) and templates (a version's
 * planned fields, templates/instantiable.ts). Its own module so that neither imports the other.
 */
import type { FieldsTable } from '../../storage/schema.js';
import type { PlacedField } from './field-layout.js';

/** A placed field's own columns of a fields row (everything but its ids); instantiation uses them too. */
export function fieldColumns(
  f: PlacedField,
  position: number,
): Omit<FieldsTable, 'id' | 'envelope_id' | 'document_id' | 'recipient_id'> {
  return {
    position,
    field_type: f.field_type,
    page_number: f.page_number,
    x: f.rect.x,
    y: f.rect.y,
    width: f.rect.width,
    height: f.rect.height,
    label: f.label,
    value: f.value,
    options: f.options === null ? null : JSON.stringify(f.options),
    pdf_signature_field: f.pdf_signature_field,
    required: f.required ? 1 : 0,
    editable: f.editable ? 1 : 0,
  };
}
