/** Draft edits: PATCH an envelope or a recipient, DELETE a recipient or a document. */
import { Type, type Static, type TSchema } from 'typebox';
import { ROLES, ROUTING_ORDERS, SIGNATURE_METHODS } from '../../domain/envelopes/model.js';
import { StringEnum, Uuid } from './common.js';
import { EnvelopeReminders } from './reminders.js';

/**
 * Optional and nullable as `type: [T, "null"]`, not anyOf: one error per bad member, not one per branch
 * (as in schemas/templates.ts).
 */
const Clearable = <T extends TSchema>(schema: T) =>
  Type.Optional(
    Type.Unsafe<Static<T> | null>({ ...schema, type: [(schema as unknown as { type: string }).type, 'null'] }),
  );

export const EnvelopePatchBody = Type.Object(
  {
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    message: Clearable(Type.String({ maxLength: 10_000 })),
    routing_order: Type.Optional(StringEnum(ROUTING_ORDERS)),
    expire_in_days: Clearable(Type.Integer({ minimum: 1, maximum: 3650 })),
    redirect_url: Clearable(Type.String({ format: 'uri', maxLength: 2048 })),
    metadata: Clearable(
      Type.Unsafe<Record<string, unknown>>({
        type: 'object',
        additionalProperties: true,
        description:
          'merged member by member (a member set to null is removed); null clears it; at most 16 KiB after merging',
      }),
    ),
    external_id: Clearable(
      Type.String({ minLength: 1, maxLength: 255, description: 'unique per account: 409 external_id_conflict' }),
    ),
    reminders: Type.Optional(EnvelopeReminders),
  },
  {
    additionalProperties: true,
    description:
      'JSON Merge Patch (RFC 7396) on a draft: members present are set, null clears one (not title or routing_order); other members of the envelope are refused, unknown members ignored',
    examples: [
      { title: 'Lease agreement, flat 4B (revised)', expire_in_days: 14, metadata: { deal: 42, old_key: null } },
      { message: null, external_id: 'lease-4b-v2' },
    ],
  },
);

export const RecipientPatchBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    email: Type.Optional(Type.String({ format: 'email', maxLength: 320 })),
    role: Type.Optional(
      StringEnum(ROLES, {
        description:
          'without signature_method, the current method is kept when the new role allows it, else the role default',
      }),
    ),
    signature_method: Type.Optional(StringEnum(SIGNATURE_METHODS)),
    sequence: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  },
  {
    additionalProperties: false,
    description:
      'members present replace; the fields already placed must still pass the rules of PUT …/fields (422 invalid_field_layout)',
    examples: [{ email: 'asha.rao@example.org' }, { signature_method: 'dsc' }, { role: 'cc' }],
  },
);

export const EnvelopeRecipientParams = Type.Object({ id: Uuid, recipient_id: Uuid });
