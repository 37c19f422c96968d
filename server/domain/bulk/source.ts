/**
 * The source of a bulk send, read once when the batch is accepted and kept as a snapshot on the batch:
 * recipient slots (role, method, sequence), the documents (workspace documents, shared content-addressed
 * by every row's envelope, never copied) and their fields by slot. Later edits of the source draft do
 * not change rows still queued, and the source itself is only read, never written.
 */
import { MoharError, type ErrorItem } from '../../../common/errors.js';
import type { Context } from '../context.js';
import { storedInfo } from '../documents/documents.js';
import { validateFieldLayout, type FieldInput } from '../envelopes/field-layout.js';
import { FIELD_TYPES } from '../../../common/fields.js';
import type { Role, RoutingOrder, SignatureMethod } from '../envelopes/model.js';
import { findTemplate, loadVersion } from '../templates/store.js';
import type { TemplateField } from '../templates/model.js';
import { envelopeFieldRows } from '../envelopes/field-rows.js';

export interface SlotSnapshot {
  readonly role: Role;
  readonly signature_method: SignatureMethod;
  readonly sequence: number;
  /** The template role_key (template sources). */
  readonly role_key: string | null;
  /** The source recipient's name or the role's label, shown to people preparing a CSV (absent in older snapshots). */
  readonly label?: string | null;
}

/** A field of the source, by recipient slot; `keys` are the names field_values may use for it. */
export interface FieldSnapshot {
  readonly slot: number;
  readonly keys: readonly string[];
  readonly input: Omit<FieldInput, 'recipient_id'>;
}

export interface DocumentSnapshot {
  readonly document_id: string;
  readonly fields: readonly FieldSnapshot[];
}

export interface SourceSnapshot {
  readonly kind: 'envelope' | 'template';
  readonly id: string;
  readonly version: number | null;
  readonly title: string;
  readonly message: string | null;
  readonly routing_order: RoutingOrder;
  readonly expire_in_days: number | null;
  readonly redirect_url: string | null;
  readonly metadata: Record<string, unknown> | null;
  readonly slots: readonly SlotSnapshot[];
  readonly documents: readonly DocumentSnapshot[];
}

export interface SourceRef {
  source_envelope_id?: string | undefined;
  source_template_id?: string | undefined;
  template_version?: number | undefined;
}

function sourceState(reason: string, message: string, errors: ErrorItem[] = []): MoharError {
  return new MoharError('bulk_source_state', message, { extra: { reason }, ...(errors.length > 0 ? { errors } : {}) });
}

function fieldInput(f: {
  field_type: number;
  page_number: number;
  x: number | null;
  y: number | null;
  width: number | null;
  height: number | null;
  label: string | null;
  value: string | null;
  options: string[] | null;
  pdf_signature_field: string | null;
  required: boolean;
  editable: boolean;
}): Omit<FieldInput, 'recipient_id'> {
  const placed =
    f.pdf_signature_field === null
      ? { x: f.x!, y: f.y!, width: f.width!, height: f.height! }
      : { pdf_signature_field: f.pdf_signature_field };
  return {
    field_type: f.field_type,
    page_number: f.page_number,
    ...placed,
    ...(f.label === null ? {} : { label: f.label }),
    ...(f.value === null ? {} : { value: f.value }),
    ...(f.options === null ? {} : { options: f.options }),
    required: f.required,
    editable: f.editable,
  };
}

async function fromEnvelope(ctx: Context, accountId: string, envelopeId: string): Promise<SourceSnapshot> {
  const envelope = await ctx.db
    .selectFrom('envelopes')
    .selectAll()
    .where('id', '=', envelopeId)
    .where('account_id', '=', accountId)
    .$if(ctx.mode !== undefined, (q) => q.where('mode', '=', ctx.mode!))
    .executeTakeFirst();
  if (!envelope) throw new MoharError('envelope_not_found', `no envelope ${envelopeId}`);
  if (envelope.status !== 'draft') {
    throw sourceState('not_draft', `the source envelope is ${envelope.status}; only a draft can be fanned out`);
  }
  const [recipients, documents, fields] = await Promise.all([
    ctx.db
      .selectFrom('recipients')
      .selectAll()
      .where('envelope_id', '=', envelopeId)
      .orderBy('sequence')
      .orderBy('position')
      .execute(),
    ctx.db
      .selectFrom('envelope_documents')
      .innerJoin('documents', 'documents.id', 'envelope_documents.document_id')
      .select(['documents.id', 'documents.info'])
      .where('envelope_id', '=', envelopeId)
      .orderBy('position')
      .execute(),
    envelopeFieldRows(ctx.db, envelopeId),
  ]);
  if (documents.length === 0) throw sourceState('no_document', 'the source envelope has no document');
  if (recipients.length === 0) {
    throw sourceState('no_recipients', 'the source envelope has no recipients: they are the slots the rows fill');
  }
  const slotOf = new Map(recipients.map((r, i) => [r.id, i]));
  const problems: ErrorItem[] = [];
  for (const d of documents) {
    const own = fields.filter((f) => f.document_id === d.id);
    const check = validateFieldLayout(
      own.map((f) => ({
        recipient_id: f.recipient_id,
        ...fieldInput({
          ...f,
          options: f.options === null ? null : (JSON.parse(f.options) as string[]),
          required: f.required === 1,
          editable: f.editable === 1,
        }),
      })),
      recipients,
      storedInfo(d),
    );
    if (!check.ok) {
      problems.push(...check.errors.map((e) => ({ ...e, path: `/documents/${d.id}/fields${e.path ?? ''}` })));
    }
  }
  for (const r of recipients.filter((x) => x.role === 'signer')) {
    if (!fields.some((f) => f.recipient_id === r.id && f.field_type === FIELD_TYPES.SIGNATURE)) {
      problems.push({
        path: '/fields',
        code: 'signature_field_missing',
        message: `signer ${r.name} has no Signature field`,
      });
    }
  }
  if (problems.length > 0) {
    throw sourceState(
      'invalid_layout',
      `the source envelope's field layout is not valid: ${problems[0]!.message}`,
      problems,
    );
  }
  return {
    kind: 'envelope',
    id: envelopeId,
    version: null,
    title: envelope.title,
    message: envelope.message,
    routing_order: envelope.routing_order as RoutingOrder,
    expire_in_days: envelope.expire_in_days,
    redirect_url: envelope.redirect_url,
    metadata: envelope.metadata === null ? null : (JSON.parse(envelope.metadata) as Record<string, unknown>),
    slots: recipients.map((r) => ({
      role: r.role as Role,
      signature_method: r.signature_method as SignatureMethod,
      sequence: r.sequence,
      role_key: null,
      label: r.name,
    })),
    documents: documents.map((d) => ({
      document_id: d.id,
      fields: fields
        .filter((f) => f.document_id === d.id)
        .map((f) => ({
          slot: slotOf.get(f.recipient_id)!,
          keys: f.label === null ? [] : [f.label],
          input: fieldInput({
            ...f,
            options: f.options === null ? null : (JSON.parse(f.options) as string[]),
            required: f.required === 1,
            editable: f.editable === 1,
          }),
        })),
    })),
  };
}

async function fromTemplate(
  ctx: Context,
  accountId: string,
  templateId: string,
  version: number | undefined,
): Promise<SourceSnapshot> {
  const template = await findTemplate(ctx.db, accountId, templateId);
  if (template.archived_at !== null) {
    throw sourceState('template_archived', `the template was archived at ${template.archived_at}`);
  }
  const pinned = version ?? Number(template.latest_version);
  const { definition } = await loadVersion(ctx.db, templateId, pinned);
  if (definition.documents.length === 0) throw sourceState('no_document', 'the template version has no document');
  if (definition.roles.length === 0) throw sourceState('no_recipients', 'the template version has no roles');
  const roles = definition.roles
    .map((r, i) => ({ r, i }))
    .sort((a, b) => a.r.sequence - b.r.sequence || a.i - b.i)
    .map((x) => x.r);
  const slotOf = new Map(roles.map((r, i) => [r.role_key, i]));
  const s = definition.settings;
  return {
    kind: 'template',
    id: templateId,
    version: pinned,
    title: definition.name,
    message: s.message,
    routing_order: s.routing_order,
    expire_in_days: s.expire_in_days,
    redirect_url: s.redirect_url,
    metadata: s.metadata,
    slots: roles.map((r) => ({
      role: r.role,
      signature_method: r.signature_method,
      sequence: r.sequence,
      role_key: r.role_key,
      label: r.label ?? r.role_key,
    })),
    documents: definition.documents.map((d) => ({
      document_id: d.document_id,
      fields: d.fields.map((f: TemplateField) => ({
        slot: slotOf.get(f.role_key)!,
        keys: [f.field_key, f.label].filter((k): k is string => k !== null),
        input: fieldInput(f),
      })),
    })),
  };
}

export function loadSource(ctx: Context, accountId: string, ref: SourceRef): Promise<SourceSnapshot> {
  const both = ref.source_envelope_id !== undefined && ref.source_template_id !== undefined;
  if (both || (ref.source_envelope_id === undefined && ref.source_template_id === undefined)) {
    throw new MoharError(
      'validation_failed',
      'name exactly one source: source_envelope_id, or source_template_id (with an optional template_version)',
      { errors: [{ path: '/source_envelope_id', message: 'exactly one source' }] },
    );
  }
  return ref.source_envelope_id !== undefined
    ? fromEnvelope(ctx, accountId, ref.source_envelope_id)
    : fromTemplate(ctx, accountId, ref.source_template_id!, ref.template_version);
}

/** Page geometry of the snapshot's documents (the layout rules need it to check each row's values). */
export async function documentInfos(
  ctx: Context,
  accountId: string,
  source: SourceSnapshot,
): Promise<Map<string, ReturnType<typeof storedInfo>>> {
  const ids = source.documents.map((d) => d.document_id);
  const rows = await ctx.db
    .selectFrom('documents')
    .select(['id', 'info'])
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .execute();
  return new Map(rows.map((r) => [r.id, storedInfo(r)]));
}
