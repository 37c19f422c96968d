/**
 * A template's fields seen through the fields endpoint's layout rules: role_key stands where an envelope field
 * has recipient_id. Used when a definition is checked (validate.ts) and when a version's layout is planned
 * (instantiable.ts); apart from validate.ts so that the planning does not pull in envelope creation.
 */
import { MoharError, type ErrorItem } from '../../../common/errors.js';
import type { FieldInput, LayoutRecipient } from '../envelopes/field-layout.js';
import type { FieldInputByRole, TemplateRole } from './model.js';

/** A template field as the fields endpoint's validator reads it: role_key in recipient_id's place, nulls dropped. */
export function layoutInput(f: FieldInputByRole): FieldInput {
  const out: Record<string, unknown> = { recipient_id: f.role_key };
  for (const [k, v] of Object.entries(f)) {
    if (v !== null && v !== undefined && k !== 'role_key' && k !== 'field_key') out[k] = v;
  }
  return out as unknown as FieldInput;
}

/** The roles as the layout validator's recipients: role_key in the recipient id's place. */
export function layoutRecipients(roles: readonly TemplateRole[]): LayoutRecipient[] {
  return roles.map((r) => ({
    id: r.role_key,
    role: r.role,
    signature_method: r.signature_method,
    name: r.label ?? r.role_key,
  }));
}

export function layoutError(errors: readonly ErrorItem[]): MoharError {
  const first = errors[0]!;
  return new MoharError(
    'invalid_field_layout',
    `${errors.length} problem(s) in the field layout; ${first.path}: ${first.message}`,
    { errors },
  );
}
