/**
 * POST /templates/{id}/instantiate: a draft envelope pinned to one template version. The envelope API's
 * own operations build it: createEnvelope (recipient rules, DSC limits, external_id, the first audit row)
 * writes the draft together with its documents and fields in one commit, and the fields go through the
 * fields endpoint's rules (checkedFieldRows) with the new recipients, so a refused call leaves nothing
 * behind. With `send: true` the draft is then sent by sendEnvelope.
 */
import { MoharError, isMoharError, type ErrorItem } from '../../../common/errors.js';
import type { Kysely } from 'kysely';
import type { Database, FieldsTable, RecipientsTable } from '../../storage/schema.js';
import type { Context } from '../context.js';
import { documentView, storedInfo, type DocumentRow } from '../documents/documents.js';
import { createEnvelope, type DraftContents } from '../envelopes/create-envelope.js';
import type { FieldInput } from '../envelopes/field-layout.js';
import { checkedFieldRows } from '../envelopes/replace-fields.js';
import { fieldView, loadEnvelopeView, type EnvelopeView } from '../envelopes/views.js';
import { sendEnvelope } from '../workflow/send-envelope.js';
import type { TemplateDefinition, TemplateField } from './model.js';
import { findTemplate, loadVersion } from './store.js';
import { layoutError } from './validate.js';

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

interface Instantiable {
  readonly definition: TemplateDefinition;
  readonly documents: readonly DocumentRow[];
}

/**
 * Versions and document rows never change, so what instantiation reads of them is kept in memory (per
 * template version, bounded): the hot path then reads only the template row (archived? latest version?).
 */
const CACHE_SIZE = 500;
const cache = new Map<string, Instantiable>();

async function loadInstantiable(db: Kysely<Database>, accountId: string, templateId: string, version: number): Promise<Instantiable> {
  const key = `${templateId}:${version}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const { definition } = await loadVersion(db, templateId, version);
  const ids = definition.documents.map((d) => d.document_id);
  const rows = ids.length === 0 ? [] : await db.selectFrom('documents').select(['id', 'filename', 'sha256', 'size', 'page_count', 'info', 'created_at']).where('account_id', '=', accountId).where('id', 'in', ids).execute();
  const documents = ids.map((id) => rows.find((r) => r.id === id)!);
  const loaded = { definition, documents };
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(key, loaded);
  return loaded;
}

function checkRoleMapping(definition: TemplateDefinition, recipients: InstantiateInput['recipients']): void {
  const known = new Set(definition.roles.map((r) => r.role_key));
  const errors: ErrorItem[] = [
    ...Object.keys(recipients).filter((k) => !known.has(k)).map((k) => ({ path: `/recipients/${k}`, code: 'unknown_role', message: `"${k}" is not a role of this template (roles: ${[...known].join(', ') || 'none'})` })),
    ...[...known].filter((k) => !Object.hasOwn(recipients, k)).map((k) => ({ path: `/recipients/${k}`, code: 'unmapped_role', message: `role "${k}" needs a person: { "name": …, "email": … }` })),
  ];
  if (errors.length > 0) throw new MoharError('invalid_role_mapping', errors.map((e) => e.message).join('; '), { errors });
}

function checkFieldKeys(definition: TemplateDefinition, values: Record<string, string>): void {
  const keys = new Set(definition.documents.flatMap((d) => d.fields.flatMap((f) => (f.field_key === null ? [] : [f.field_key]))));
  const unknown = Object.keys(values).filter((k) => !keys.has(k));
  if (unknown.length === 0) return;
  throw new MoharError('invalid_field_values', `no field with field_key ${unknown.map((k) => `"${k}"`).join(', ')} in this template version`, {
    errors: unknown.map((k) => ({ path: `/field_values/${k}`, code: 'unknown_field_key', message: `no field has field_key "${k}"` })),
  });
}

/** A template field as the fields endpoint takes it: the role's new recipient id, the caller's value if any. */
function envelopeField(f: TemplateField, recipientId: string, values: Record<string, string>): FieldInput {
  const out: Record<string, unknown> = { recipient_id: recipientId };
  for (const [k, v] of Object.entries(f)) if (v !== null && k !== 'role_key' && k !== 'field_key') out[k] = v;
  if (f.field_key !== null && Object.hasOwn(values, f.field_key)) out.value = values[f.field_key];
  return out as unknown as FieldInput;
}

/** The documents and fields of the draft; layout errors are reported at their place in the template. */
function contentsOf(loaded: Instantiable, values: Record<string, string>, written: FieldsTable[]): (envelopeId: string, at: string) => DraftContents {
  const { definition, documents } = loaded;
  return (envelopeId, at) => ({
    documents: documents.map((d, i) => ({ envelope_id: envelopeId, document_id: d.id, position: i + 1, created_at: at })),
    fields: (recipients: readonly RecipientsTable[]) => {
      const recipientOf = new Map(definition.roles.map((r, i) => [r.role_key, recipients[i]!.id]));
      const errors: ErrorItem[] = [];
      definition.documents.forEach((d, index) => {
        try {
          written.push(...checkedFieldRows(d.fields.map((f) => envelopeField(f, recipientOf.get(f.role_key)!, values)), recipients, storedInfo(documents[index]!), envelopeId, d.document_id));
        } catch (error) {
          if (!isMoharError(error, 'invalid_field_layout')) throw error;
          errors.push(...(error.errors ?? []).map((e) => ({ ...e, path: `/documents/${index}${e.path ?? ''}` })));
        }
      });
      if (errors.length > 0) throw layoutError(errors);
      return written;
    },
  });
}

export async function instantiateTemplate(ctx: Context, accountId: string, templateId: string, input: InstantiateInput): Promise<EnvelopeView> {
  const template = await findTemplate(ctx.db, accountId, templateId);
  if (template.archived_at !== null) throw new MoharError('template_archived', `the template was archived at ${template.archived_at}; restore it before instantiating`);
  const version = input.version ?? template.latest_version;
  const loaded = await loadInstantiable(ctx.db, accountId, templateId, version);
  const { definition } = loaded;
  checkRoleMapping(definition, input.recipients);
  const values = input.field_values ?? {};
  checkFieldKeys(definition, values);

  const s = definition.settings;
  const fields: FieldsTable[] = [];
  const draft = await createEnvelope(ctx, accountId, {
    title: input.title ?? definition.name,
    routing_order: s.routing_order,
    ...(input.external_id === undefined ? {} : { external_id: input.external_id }),
    ...optional('message', input.message ?? s.message),
    ...optional('expire_in_days', input.expire_in_days ?? s.expire_in_days),
    ...optional('redirect_url', input.redirect_url ?? s.redirect_url),
    ...optional('metadata', input.metadata ?? s.metadata),
    recipients: definition.roles.map((r) => ({ ...input.recipients[r.role_key]!, role: r.role, signature_method: r.signature_method, sequence: r.sequence })),
  }, { template_id: templateId, template_version: version }, undefined, contentsOf(loaded, values, fields));

  if (input.send) {
    await sendEnvelope(ctx, accountId, draft.id);
    return loadEnvelopeView(ctx.db, draft.id);
  }
  // A new draft: its view comes from the rows just written.
  return {
    ...draft,
    documents: loaded.documents.map((d) => ({ ...documentView(d), fields: fields.filter((f) => f.document_id === d.id).map(fieldView), certified: null, certification_skipped: null })),
  };
}

function optional<K extends string, V>(key: K, value: V | null | undefined): { [P in K]?: V } {
  return (value === null || value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
