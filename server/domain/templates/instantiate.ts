/**
 * POST /templates/{id}/instantiate: a draft envelope pinned to one template version. Everything that can
 * be refused is checked first (archived, version, role mappings, field values against the fields' rules),
 * so a refused call leaves nothing behind; then the envelope is built with the envelope API's own
 * operations (create, attach document, replace fields) and, with `send: true`, sent by sendEnvelope.
 */
import { MoharError, type ErrorItem } from '../../../common/errors.js';
import type { Context } from '../context.js';
import { attachDocument } from '../envelopes/attach-document.js';
import { createEnvelope } from '../envelopes/create-envelope.js';
import type { FieldInput } from '../envelopes/field-layout.js';
import { replaceFields } from '../envelopes/replace-fields.js';
import { loadEnvelopeView, type EnvelopeView } from '../envelopes/views.js';
import { sendEnvelope } from '../workflow/send-envelope.js';
import type { TemplateDefinition, TemplateField } from './model.js';
import { findTemplate, loadVersion } from './store.js';
import { checkDocumentFields, layoutError } from './validate.js';

export interface InstantiateInput {
  version?: number;
  title?: string;
  message?: string;
  external_id?: string;
  expire_in_days?: number;
  redirect_url?: string;
  metadata?: Record<string, unknown>;
  recipients: Record<string, { name: string; email: string }>;
  field_values?: Record<string, string>;
  send?: boolean;
}

function checkRoleMapping(definition: TemplateDefinition, recipients: InstantiateInput['recipients']): void {
  const known = new Set(definition.roles.map((r) => r.role_key));
  const errors: ErrorItem[] = [
    ...Object.keys(recipients).filter((k) => !known.has(k)).map((k) => ({ path: `/recipients/${k}`, code: 'unknown_role', message: `"${k}" is not a role of this template (roles: ${[...known].join(', ') || 'none'})` })),
    ...[...known].filter((k) => !Object.hasOwn(recipients, k)).map((k) => ({ path: `/recipients/${k}`, code: 'unmapped_role', message: `role "${k}" needs a person: { "name": …, "email": … }` })),
  ];
  if (errors.length > 0) throw new MoharError('invalid_role_mapping', errors.map((e) => e.message).join('; '), { errors });
}

/** The template's documents with field_values applied, checked by the fields endpoint's rules. */
function fillFields(definition: TemplateDefinition, values: Record<string, string>, infos: ReadonlyMap<string, string>): TemplateField[][] {
  const keys = new Set(definition.documents.flatMap((d) => d.fields.flatMap((f) => (f.field_key === null ? [] : [f.field_key]))));
  const unknown = Object.keys(values).filter((k) => !keys.has(k));
  if (unknown.length > 0) {
    throw new MoharError('invalid_field_values', `no field with field_key ${unknown.map((k) => `"${k}"`).join(', ')} in this template version`, {
      errors: unknown.map((k) => ({ path: `/field_values/${k}`, code: 'unknown_field_key', message: `no field has field_key "${k}"` })),
    });
  }
  const errors: ErrorItem[] = [];
  const filled = definition.documents.map((d, index) => {
    const fields = d.fields.map((f) => (f.field_key !== null && Object.hasOwn(values, f.field_key) ? { ...f, value: values[f.field_key]! } : f));
    errors.push(...checkDocumentFields(fields, definition.roles, { info: infos.get(d.document_id)! }, index).errors);
    return fields;
  });
  if (errors.length > 0) throw layoutError(errors);
  return filled;
}

/** Page geometry of the version's documents (the layout rules need it to check values and placements). */
async function documentInfos(ctx: Context, accountId: string, definition: TemplateDefinition): Promise<Map<string, string>> {
  const ids = definition.documents.map((d) => d.document_id);
  if (ids.length === 0) return new Map();
  const rows = await ctx.db.selectFrom('documents').select(['id', 'info']).where('account_id', '=', accountId).where('id', 'in', ids).execute();
  return new Map(rows.map((r) => [r.id, r.info]));
}

function envelopeField(f: TemplateField, recipientId: string): FieldInput {
  const out: Record<string, unknown> = { recipient_id: recipientId };
  for (const [k, v] of Object.entries(f)) if (v !== null && k !== 'role_key' && k !== 'field_key') out[k] = v;
  return out as unknown as FieldInput;
}

export async function instantiateTemplate(ctx: Context, accountId: string, templateId: string, input: InstantiateInput): Promise<EnvelopeView> {
  const template = await findTemplate(ctx.db, accountId, templateId);
  if (template.archived_at !== null) throw new MoharError('template_archived', `the template was archived at ${template.archived_at}; restore it before instantiating`);
  const version = input.version ?? template.latest_version;
  const { definition } = await loadVersion(ctx.db, templateId, version);
  checkRoleMapping(definition, input.recipients);
  const fields = fillFields(definition, input.field_values ?? {}, await documentInfos(ctx, accountId, definition));

  const s = definition.settings;
  const draft = await createEnvelope(ctx, accountId, {
    title: input.title ?? definition.name,
    routing_order: s.routing_order,
    ...(input.external_id === undefined ? {} : { external_id: input.external_id }),
    ...optional('message', input.message ?? s.message),
    ...optional('expire_in_days', input.expire_in_days ?? s.expire_in_days),
    ...optional('redirect_url', input.redirect_url ?? s.redirect_url),
    ...optional('metadata', input.metadata ?? s.metadata),
    recipients: definition.roles.map((r) => ({ ...input.recipients[r.role_key]!, role: r.role, signature_method: r.signature_method, sequence: r.sequence })),
  }, { template_id: templateId, template_version: version });

  const recipientOf = new Map(definition.roles.map((r, i) => [r.role_key, draft.recipients[i]!.recipient_id]));
  for (const [index, document] of definition.documents.entries()) {
    await attachDocument(ctx, accountId, draft.id, { kind: 'workspace', documentId: document.document_id });
    if (fields[index]!.length > 0) await replaceFields(ctx, accountId, draft.id, document.document_id, fields[index]!.map((f) => envelopeField(f, recipientOf.get(f.role_key)!)));
  }
  if (input.send) await sendEnvelope(ctx, accountId, draft.id);
  return loadEnvelopeView(ctx.db, draft.id);
}

function optional<K extends string, V>(key: K, value: V | null | undefined): { [P in K]?: V } {
  return (value === null || value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
