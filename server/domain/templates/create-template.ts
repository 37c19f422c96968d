/**
 * POST /templates, three ways: from scratch (multipart PDFs + a `template` JSON part), from an existing
 * envelope (its documents, fields and recipients become the template's documents, fields and roles; the
 * envelope is not changed), or by importing a portable template exported elsewhere. With an Idempotency-Key
 * (`claim`), the key's row and its answer are written in the template's transaction (issue 33): the documents'
 * blobs before it are content-addressed, so a run again after a crash stores nothing twice.
 */
import type { Context } from '../context.js';
import { iso } from '../time.js';
import { newId } from '../ids.js';
import { findEnvelope } from '../envelopes/find-envelope.js';
import { loadEnvelopeView } from '../envelopes/views.js';
import { MoharError } from '../../../common/errors.js';
import { DocumentResolver, type UploadedPart } from './documents.js';
import {
  TEMPLATE_FORMAT,
  type DefinitionInput,
  type FieldInputByRole,
  type RoleInput,
  type TemplateActor,
} from './model.js';
import { recordChange } from './store.js';
import { creationSummary } from './summary.js';
import { buildDefinition, precheckDefinition } from './validate.js';
import { portableTemplate, type PortableTemplate } from './views.js';
import { emailOf } from '../users/creators.js';
import type { KeyInCommit } from '../idempotency/idempotency.js';
import { insertKeyInTransaction } from '../idempotency/key-in-transaction.js';

export type CreateSource = 'upload' | 'envelope' | 'import';

async function createFrom(
  ctx: Context,
  accountId: string,
  actor: TemplateActor,
  input: DefinitionInput,
  files: ReadonlyMap<string, UploadedPart>,
  from: CreateSource,
  details: Record<string, unknown> = {},
  claim?: KeyInCommit,
): Promise<PortableTemplate> {
  precheckDefinition(input);
  const resolver = new DocumentResolver(ctx, accountId, files);
  const documents = await resolver.resolve(input.documents ?? resolver.partsInOrder());
  const definition = buildDefinition(input, documents);
  const now = ctx.now();
  const at = iso(now);
  const createdBy = actor.type === 'user' ? actor.id : null;
  const template = {
    id: newId(),
    account_id: accountId,
    name: definition.name,
    latest_version: 1,
    archived_at: null,
    created_at: at,
    updated_at: at,
    created_by_user_id: createdBy,
  };
  const createdByEmail = createdBy === null ? null : await emailOf(ctx.db, createdBy);
  const answer = portableTemplate(
    { ...template, created_by_email: createdByEmail },
    { version: 1, created_at: at },
    definition,
  );
  await ctx.db.transaction().execute(async (trx) => {
    if (claim) await insertKeyInTransaction(trx, claim, answer, now);
    await recordChange(
      trx,
      {
        accountId,
        templateId: template.id,
        event: 'template.created',
        actor,
        at,
        template,
        version: { definition, summary: creationSummary(definition, from) },
        details: { created_from: from, ...details },
      },
      true,
    );
  });
  return answer;
}

/** From scratch: `definition` is the `template` JSON part; `files` the PDF parts by part name. */
export function createTemplate(
  ctx: Context,
  accountId: string,
  actor: TemplateActor,
  definition: DefinitionInput,
  files: ReadonlyMap<string, UploadedPart>,
  claim?: KeyInCommit,
): Promise<PortableTemplate> {
  return createFrom(ctx, accountId, actor, definition, files, 'upload', {}, claim);
}

/** An exported portable template: its documents come embedded (content_base64) or by SHA-256 from this account. */
export function importTemplate(
  ctx: Context,
  accountId: string,
  actor: TemplateActor,
  portable: DefinitionInput & { format: string; template_id?: string; version?: number },
  claim?: KeyInCommit,
): Promise<PortableTemplate> {
  if (portable.format !== TEMPLATE_FORMAT) {
    throw new MoharError('validation_failed', `format must be "${TEMPLATE_FORMAT}"`, {
      errors: [{ path: '/format', message: `must be "${TEMPLATE_FORMAT}"` }],
    });
  }
  // A document id from another installation means nothing here: documents are found by content.
  const documents = (portable.documents ?? []).map(({ document_id: _ignored, ...d }) => d);
  const input: DefinitionInput = {
    name: portable.name,
    description: portable.description ?? null,
    ...(portable.settings ? { settings: portable.settings } : {}),
    roles: portable.roles ?? [],
    documents,
  };
  const origin =
    portable.template_id === undefined
      ? {}
      : { imported_from: { template_id: portable.template_id, version: portable.version ?? null } };
  return createFrom(ctx, accountId, actor, input, new Map(), 'import', origin, claim);
}

export interface FromEnvelopeInput {
  source_envelope_id: string;
  name?: string;
  description?: string;
}

/** A draft or sent envelope as a template: each recipient becomes a role (signer_1, reviewer_1, …). */
export async function templateFromEnvelope(
  ctx: Context,
  accountId: string,
  actor: TemplateActor,
  input: FromEnvelopeInput,
  claim?: KeyInCommit,
): Promise<PortableTemplate> {
  await findEnvelope(ctx, accountId, input.source_envelope_id);
  const envelope = await loadEnvelopeView(ctx.db, input.source_envelope_id);
  const counts = new Map<string, number>();
  const roleOf = new Map<string, string>();
  const roles: RoleInput[] = envelope.recipients.map((r) => {
    const n = (counts.get(r.role) ?? 0) + 1;
    counts.set(r.role, n);
    const roleKey = `${r.role}_${n}`;
    roleOf.set(r.recipient_id, roleKey);
    return {
      role_key: roleKey,
      label: `${r.role[0]!.toUpperCase()}${r.role.slice(1)} ${n}`,
      role: r.role as RoleInput['role'] & string,
      signature_method: r.signature_method as RoleInput['signature_method'] & string,
      sequence: r.sequence,
    };
  });
  const documents = envelope.documents.map((d) => ({
    document_id: d.document_id,
    fields: d.fields.map((f): FieldInputByRole => ({
      role_key: roleOf.get(f.recipient_id)!,
      field_type: f.field_type,
      page_number: f.page_number,
      // A field placed by PDF signature field name keeps that placement (its rectangle comes from the PDF).
      ...(f.pdf_signature_field === null
        ? { x: f.x, y: f.y, width: f.width, height: f.height }
        : { pdf_signature_field: f.pdf_signature_field }),
      label: f.label,
      value: f.value,
      options: f.options,
      required: f.required,
      editable: f.editable,
    })),
  }));
  const definition: DefinitionInput = {
    name: input.name ?? envelope.title,
    description: input.description ?? null,
    settings: {
      message: envelope.message,
      routing_order: envelope.routing_order as 'parallel' | 'sequential',
      expire_in_days: envelope.expire_in_days,
      redirect_url: envelope.redirect_url,
      metadata: envelope.metadata,
      reminders: envelope.reminders,
    },
    roles,
    documents,
  };
  const origin = { source_envelope_id: envelope.id };
  return createFrom(ctx, accountId, actor, definition, new Map(), 'envelope', origin, claim);
}
