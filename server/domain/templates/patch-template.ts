/**
 * PATCH /templates/{id}: a JSON Merge Patch (RFC 7396) on the portable template's editable members — name,
 * description, settings (merged member by member), roles and documents (arrays, so replaced whole, fields
 * inside documents). The result is checked like a new template; when it differs from the latest version it
 * becomes version n+1 (never a change of an existing version); when it does not, nothing is written.
 * If-Match carries the ETag of the version the caller edited: another version in between gives 412.
 */
import { MoharError } from '../../../common/errors.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import { DocumentResolver, type UploadedPart } from './documents.js';
import type { DefinitionInput, DocumentInput, TemplateActor, TemplateDefinition } from './model.js';
import { findTemplate, loadVersion, withTemplate } from './store.js';
import { recordChange } from './store.js';
import { summarize, unchanged } from './summary.js';
import { buildDefinition, precheckDefinition } from './validate.js';
import { portableTemplate, type PortableTemplate } from './views.js';

const EDITABLE = new Set(['name', 'description', 'settings', 'roles', 'documents']);
/** Members of the GET answer a round trip may send back unchanged; a different value is refused. */
const READ_ONLY = new Set([
  'format',
  'template_id',
  'version',
  'latest_version',
  'archived',
  'archived_at',
  'created_by',
  'created_at',
  'updated_at',
  'version_created_at',
]);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** RFC 7396: objects merge member by member, null removes, anything else (arrays too) replaces. */
export function mergePatch(target: Json, patch: Json): Json {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const result: { [key: string]: Json } =
    target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key] ?? null, value);
  }
  return result;
}

/** The version's definition in the shape a caller edits (what GET shows, documents named by id). */
function editable(definition: TemplateDefinition): Json {
  return JSON.parse(
    JSON.stringify({
      name: definition.name,
      description: definition.description,
      settings: definition.settings,
      roles: definition.roles,
      documents: definition.documents.map((d) => ({
        document_id: d.document_id,
        sha256: d.sha256,
        filename: d.filename,
        fields: d.fields,
      })),
    }),
  ) as Json;
}

/**
 * The editable members of the patch. A read-only member sent back changed is refused (it cannot be done here);
 * an unknown member is ignored, as on create and everywhere in the API (docs/api.md, "Unknown members").
 */
function editableMembers(patch: Record<string, unknown>, current: PortableTemplate): Record<string, unknown> {
  const errors = Object.keys(patch).flatMap((key) =>
    READ_ONLY.has(key) && JSON.stringify(patch[key]) !== JSON.stringify(current[key as keyof PortableTemplate])
      ? [{ path: `/${key}`, message: 'is read-only (archive with DELETE, restore with POST …/restore)' }]
      : [],
  );
  if (errors.length > 0) {
    throw new MoharError('validation_failed', errors.map((e) => `${e.path} ${e.message}`).join('; '), { errors });
  }
  return Object.fromEntries(Object.entries(patch).filter(([key]) => EDITABLE.has(key)));
}

/** `"3"`, `W/"3"` or `3` → 3; `*` matches any version. */
export function parseIfMatch(header: string | undefined): number | '*' | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (value === '*') return '*';
  const match = /^(?:W\/)?"?(\d+)"?$/.exec(value);
  if (!match) {
    throw new MoharError('validation_failed', 'If-Match must be the template ETag, e.g. "3"', {
      errors: [{ path: 'headers/if-match', message: 'not an ETag of this API' }],
    });
  }
  return Number(match[1]);
}

function checkPrecondition(ifMatch: number | '*' | undefined, latest: number): void {
  if (ifMatch === undefined || ifMatch === '*' || ifMatch === latest) return;
  throw new MoharError(
    'precondition_failed',
    `the template is at version ${latest}, not ${ifMatch}: read it again and re-apply your change`,
    { extra: { latest_version: latest } },
  );
}

function refuseArchived(archivedAt: string | null): void {
  if (archivedAt !== null) {
    throw new MoharError(
      'template_archived',
      `the template was archived at ${archivedAt}; restore it first (POST …/restore)`,
    );
  }
}

export interface PatchInput {
  readonly patch: Record<string, unknown>;
  readonly files: ReadonlyMap<string, UploadedPart>;
  readonly ifMatch: string | undefined;
}

export async function patchTemplate(
  ctx: Context,
  accountId: string,
  actor: TemplateActor,
  templateId: string,
  input: PatchInput,
): Promise<{ template: PortableTemplate; created: boolean }> {
  const ifMatch = parseIfMatch(input.ifMatch);
  const resolver = new DocumentResolver(ctx, accountId, input.files);
  // A concurrent PATCH may land between reading the base and writing: then apply ours again on the new base.
  for (let attempt = 0; attempt < 3; attempt++) {
    const template = await findTemplate(ctx.db, accountId, templateId);
    refuseArchived(template.archived_at);
    checkPrecondition(ifMatch, template.latest_version);
    const base = await loadVersion(ctx.db, templateId, template.latest_version);
    const changes = editableMembers(input.patch, portableTemplate(template, base.row, base.definition));
    const patched = mergePatch(editable(base.definition), changes as Json) as unknown as DefinitionInput & {
      documents?: DocumentInput[];
    };
    if (typeof patched.name !== 'string') {
      throw new MoharError('validation_failed', '/name is required', {
        errors: [{ path: '/name', message: 'is required' }],
      });
    }
    precheckDefinition(patched);
    const documents = await resolver.resolve(patched.documents ?? []);
    const definition = buildDefinition(patched, documents);
    if (unchanged(base.definition, definition)) {
      return { template: portableTemplate(template, base.row, base.definition), created: false };
    }

    const result = await withTemplate(ctx, accountId, templateId, async (trx, locked) => {
      refuseArchived(locked.archived_at);
      checkPrecondition(ifMatch, locked.latest_version);
      if (locked.latest_version !== template.latest_version) return undefined;
      const at = iso(ctx.now());
      const next = { ...locked, name: definition.name, latest_version: locked.latest_version + 1, updated_at: at };
      await recordChange(
        trx,
        {
          accountId,
          templateId,
          event: 'template.updated',
          actor,
          at,
          template: next,
          version: { definition, summary: summarize(base.definition, definition) },
        },
        false,
      );
      return portableTemplate(next, { version: next.latest_version, created_at: at }, definition);
    });
    if (result) return { template: result, created: true };
  }
  throw new MoharError('concurrent_update', 'the template is being changed by other requests; retry shortly', {
    retryAfterSeconds: 1,
  });
}
