import { Type, type Static } from 'typebox';
import { Uuid } from './common.js';
import { ALL_FIELD_TYPES, FIELD_DESCRIPTORS, FIELD_TYPES } from '../../../common/fields.js';
import { FieldResponse } from './envelopes.js';

/** '1 Signature; 2 Initial (not for USB DSC); 3 Date Signed; …': the API's names of the field types. */
export const FIELD_TYPE_DESCRIPTION = ALL_FIELD_TYPES.map(
  (type) => `${type} ${FIELD_DESCRIPTORS[type].label}${type === FIELD_TYPES.INITIAL ? ' (not for USB DSC)' : ''}`,
).join('; ');

/** The field types are the integers 1 to 13 without gaps (common/fields.ts). */
const FIELD_TYPE_RANGE = { minimum: Math.min(...ALL_FIELD_TYPES), maximum: Math.max(...ALL_FIELD_TYPES) };

/**
 * What one field may hold. The layout rules that need the envelope (its recipients, the document's pages and
 * signature fields, the placement) are checked by the domain, which reports every bad field at once.
 */
export const FieldBody = Type.Object({
  recipient_id: Type.String({ format: 'uuid', description: 'recipient the field belongs to' }),
  field_type: Type.Integer({ ...FIELD_TYPE_RANGE, description: FIELD_TYPE_DESCRIPTION }),
  page_number: Type.Optional(
    Type.Integer({ minimum: 1, description: 'starts at 1; at most the page count of the document' }),
  ),
  x: Type.Optional(Type.Number({ description: 'points from the left edge of the page as displayed' })),
  y: Type.Optional(Type.Number({ description: 'points from the top edge of the page as displayed' })),
  width: Type.Optional(Type.Number()),
  height: Type.Optional(Type.Number()),
  x1: Type.Optional(Type.Number()),
  y1: Type.Optional(Type.Number()),
  x2: Type.Optional(Type.Number()),
  y2: Type.Optional(Type.Number()),
  label: Type.Optional(Type.String({ maxLength: 500 })),
  value: Type.Optional(Type.String({ maxLength: 10_000 })),
  options: Type.Optional(Type.Array(Type.String({ maxLength: 500 }), { description: 'Dropdown and Radio choices' })),
  pdf_signature_field: Type.Optional(
    Type.String({
      maxLength: 1000,
      description: 'USB DSC Signature only: fully qualified name of an empty signature field of the PDF',
    }),
  ),
  required: Type.Optional(Type.Boolean({ description: 'default true, false for Checkbox' })),
  editable: Type.Optional(
    Type.Boolean({
      description:
        'default false: a pre-assigned value is read-only for the signer (a change is refused with 422 field_read_only); true lets them change it',
    }),
  ),
});

export const FieldsBody = Type.Object({ fields: Type.Array(FieldBody, { maxItems: 1000 }) });
export type FieldsBody = Static<typeof FieldsBody>;

export const FieldsResponse = Type.Object({ envelope_id: Uuid, document_id: Uuid, fields: Type.Array(FieldResponse) });
