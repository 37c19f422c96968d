/**
 * POST /templates/{id}/instantiate: a draft envelope pinned to one template version. createEnvelope's
 * own steps build it (prepareDraft: recipient rules, DSC limits, the first audit row, envelope.created;
 * writeDraft: one commit), with the version's documents in the same commit, so a refused call leaves nothing
 * behind. The fields stay by reference to the version until the draft's layout or recipients change or it is
 * sent (envelopes/field-rows.ts). The layout was checked when the version was stored (instantiable.ts); only the
 * values the caller gives are checked here, by the fields endpoint's value rules. With an Idempotency-Key the
 * key's row and its answer go into that same commit. With `send: true` the draft is then sent by sendEnvelope.
 */
import { MoharError, type ErrorItem } from '../../../common/errors.js';
import type { Context } from '../context.js';
import { draftView, prepareDraft, type DraftContents } from '../envelopes/create-envelope.js';
import { writeDraft } from '../envelopes/write-draft.js';
import { pendingLayoutJson } from '../envelopes/field-rows.js';
import { valueProblems } from '../envelopes/field-layout.js';
import { loadEnvelopeView, type EnvelopeView } from '../envelopes/views.js';
import type { KeyInCommit } from '../idempotency/idempotency.js';
import { sendEnvelope } from '../workflow/send-envelope.js';
import { loadInstantiable, type Instantiable } from './instantiable.js';
import { storedInstantiation, withLayoutFields } from './instantiated-answer.js';
import type { TemplateDefinition } from './model.js';
import { templateState } from './store.js';
import { layoutError } from './layout-input.js';
import type { Creator } from '../users/creators.js';
import type { Delivery } from '../envelopes/model.js';

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
  /** email (default) or none, as on POST /envelopes. */
  delivery?: Delivery;
  /** Not from the request body: the console user instantiating (issue 15); absent for API keys. */
  createdBy?: Creator;
}

function checkRoleMapping(definition: TemplateDefinition, recipients: InstantiateInput['recipients']): void {
  const known = new Set(definition.roles.map((r) => r.role_key));
  const errors: ErrorItem[] = [
    ...Object.keys(recipients)
      .filter((k) => !known.has(k))
      .map((k) => ({
        path: `/recipients/${k}`,
        code: 'unknown_role',
        message: `"${k}" is not a role of this template (roles: ${[...known].join(', ') || 'none'})`,
      })),
    ...[...known]
      .filter((k) => !Object.hasOwn(recipients, k))
      .map((k) => ({
        path: `/recipients/${k}`,
        code: 'unmapped_role',
        message: `role "${k}" needs a person: { "name": …, "email": … }`,
      })),
  ];
  if (errors.length > 0) {
    throw new MoharError('invalid_role_mapping', errors.map((e) => e.message).join('; '), { errors });
  }
}

function checkFieldKeys(loaded: Instantiable, values: Record<string, string>): void {
  const unknown = Object.keys(values).filter((k) => !loaded.fieldKeys.has(k));
  if (unknown.length === 0) return;
  throw new MoharError(
    'invalid_field_values',
    `no field with field_key ${unknown.map((k) => `"${k}"`).join(', ')} in this template version`,
    {
      errors: unknown.map((k) => ({
        path: `/field_values/${k}`,
        code: 'unknown_field_key',
        message: `no field has field_key "${k}"`,
      })),
    },
  );
}

/**
 * The documents of the draft and its layout by reference to the version (envelopes/field-rows.ts): no field rows
 * are written, the draft's pending_layout names the recipient of each role and the caller's values. The values
 * are checked here by the fields endpoint's value rules, with errors at their place in the template.
 */
function contentsOf(
  loaded: Instantiable,
  values: Record<string, string>,
): (envelopeId: string, at: string) => DraftContents {
  return (envelopeId, at) => ({
    documents: loaded.documents.map((d, i) => ({
      envelope_id: envelopeId,
      document_id: d.id,
      position: i + 1,
      created_at: at,
    })),
    fields: () => {
      checkValues(loaded, values);
      return [];
    },
    pendingLayout: (recipients) => pendingLayoutJson({ recipients: recipients.map((r) => r.id), values }),
  });
}

function checkValues(loaded: Instantiable, values: Record<string, string>): void {
  const errors: ErrorItem[] = [];
  for (const p of loaded.fields) {
    if (p.fieldKey === null || !Object.hasOwn(values, p.fieldKey)) continue;
    const value = values[p.fieldKey]!;
    for (const problem of valueProblems({
      field_type: p.row.field_type,
      value,
      ...(p.options === null ? {} : { options: p.options }),
    })) {
      errors.push({ index: p.fieldIndex, path: `/documents/${p.documentIndex}/fields/${p.fieldIndex}`, ...problem });
    }
  }
  if (errors.length > 0) throw layoutError(errors);
}

/**
 * `claim`: the request's Idempotency-Key, stored with the answer in the draft's commit. Not with `send:
 * true`, whose answer (the sent envelope) exists only after the send's own commit: the route keeps the
 * key the three-commit way for it (http/idempotency.ts).
 */
export async function instantiateTemplate(
  ctx: Context,
  accountId: string,
  templateId: string,
  input: InstantiateInput,
  claim?: KeyInCommit,
): Promise<EnvelopeView> {
  if (input.send && claim) {
    throw new MoharError(
      'internal_error',
      'instantiate with send: true takes its Idempotency-Key the three-commit way',
    );
  }
  const template = await templateState(ctx, accountId, templateId);
  if (template.archived_at !== null) {
    throw new MoharError(
      'template_archived',
      `the template was archived at ${template.archived_at}; restore it before instantiating`,
    );
  }
  const version = input.version ?? template.latest_version;
  const loaded = await loadInstantiable(ctx.db, accountId, templateId, version);
  checkRoleMapping(loaded.definition, input.recipients);
  const values = input.field_values ?? {};
  checkFieldKeys(loaded, values);

  const draft = prepareDraft(
    ctx,
    accountId,
    envelopeInput(loaded.definition, input),
    { template_id: templateId, template_version: version },
    undefined,
    contentsOf(loaded, values),
  );
  if (input.send) {
    await writeDraft(ctx, draft);
    await sendEnvelope(ctx, accountId, draft.envelope.id);
    return loadEnvelopeView(ctx.db, draft.envelope.id);
  }
  // A new draft: its view comes from the rows about to be written and the rows its layout stands for.
  const documents = loaded.documentViews.map((d) => ({
    ...d,
    certified: null,
    certification_skipped: null,
    final_sha256: null,
  }));
  const layout = { recipients: draft.recipients.map((r) => r.id), values };
  const view: EnvelopeView = {
    ...draftView(draft),
    documents: withLayoutFields(documents, draft.envelope.id, loaded, layout),
  };
  if (claim) claim.serialize(view); // the reply, serialized once; the key's row keeps it without its fields
  await writeDraft(ctx, draft, claim && { claim, responseJson: storedInstantiation(view, values) });
  return view;
}

function envelopeInput(definition: TemplateDefinition, input: InstantiateInput) {
  const s = definition.settings;
  return {
    title: input.title ?? definition.name,
    routing_order: s.routing_order,
    ...(input.external_id === undefined ? {} : { external_id: input.external_id }),
    ...optional('message', input.message ?? s.message),
    ...optional('expire_in_days', input.expire_in_days ?? s.expire_in_days),
    ...optional('redirect_url', input.redirect_url ?? s.redirect_url),
    ...optional('metadata', input.metadata ?? s.metadata),
    ...optional('reminders', s.reminders),
    recipients: definition.roles.map((r) => ({
      ...input.recipients[r.role_key]!,
      role: r.role,
      signature_method: r.signature_method,
      sequence: r.sequence,
    })),
    ...(input.createdBy ? { createdBy: input.createdBy } : {}),
    ...optional('delivery', input.delivery),
  };
}

function optional<K extends string, V>(key: K, value: V | null | undefined): { [P in K]?: V } {
  return (value === null || value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
