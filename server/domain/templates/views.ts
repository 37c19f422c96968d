/** The JSON shapes of templates: the portable template (GET), list items and version history entries. */
import type { TemplatesTable, TemplateVersionsTable } from '../../storage/schema.js';
import type { Context } from '../context.js';
import {
  TEMPLATE_FORMAT,
  type TemplateDefinition,
  type TemplateDocument,
  type TemplateRole,
  type TemplateSettings,
} from './model.js';
import type { ChangeSummary } from './summary.js';
import { createdByView, type CreatedBy } from '../users/creators.js';

export interface PortableDocument extends TemplateDocument {
  /** With ?include=documents: the PDF itself, base64. */
  content_base64?: string;
}

/** Self-describing: an export of this JSON (with documents embedded) re-creates the template elsewhere. */
export interface PortableTemplate {
  format: typeof TEMPLATE_FORMAT;
  template_id: string;
  /** The version shown (the latest unless a version was asked for). */
  version: number;
  latest_version: number;
  name: string;
  description: string | null;
  archived: boolean;
  archived_at: string | null;
  /** The console user who created it; null: an API key or the system (issue 15). */
  created_by: CreatedBy | null;
  settings: TemplateSettings;
  roles: TemplateRole[];
  documents: PortableDocument[];
  created_at: string;
  updated_at: string;
  version_created_at: string;
}

export interface TemplateListItem {
  template_id: string;
  name: string;
  version: number;
  archived: boolean;
  archived_at: string | null;
  created_at: string;
  updated_at: string;
  created_by: CreatedBy | null;
}

export interface VersionView {
  version: number;
  created_at: string;
  created_by: { type: string; id: string | null };
  summary: ChangeSummary;
}

/** A template row as read with its creator's e-mail (store.ts findTemplate); without it created_by shows no e-mail. */
export type TemplateRow = TemplatesTable & { created_by_email?: string | null };

export function portableTemplate(
  template: TemplateRow,
  version: Pick<TemplateVersionsTable, 'version' | 'created_at'>,
  definition: TemplateDefinition,
): PortableTemplate {
  return {
    format: TEMPLATE_FORMAT,
    template_id: template.id,
    version: Number(version.version),
    latest_version: Number(template.latest_version),
    name: definition.name,
    description: definition.description,
    archived: template.archived_at !== null,
    archived_at: template.archived_at,
    created_by: createdByView(template.created_by_user_id, template.created_by_email),
    settings: definition.settings,
    roles: definition.roles,
    documents: definition.documents.map((d) => ({ ...d })),
    created_at: template.created_at,
    updated_at: template.updated_at,
    version_created_at: version.created_at,
  };
}

/** ?include=documents: the bytes go along, so the JSON alone moves the template to another installation. */
export async function embedDocuments(ctx: Context, portable: PortableTemplate): Promise<PortableTemplate> {
  const documents = await Promise.all(
    portable.documents.map(async (d) => ({
      ...d,
      content_base64: Buffer.from(await ctx.blobs.get(d.sha256)).toString('base64'),
    })),
  );
  return { ...portable, documents };
}

/** `emails`: the creators' e-mails by user id, read after the page (read-templates.ts). */
export function listItem(t: TemplatesTable, emails: ReadonlyMap<string, string>): TemplateListItem {
  const createdBy = createdByView(t.created_by_user_id, t.created_by_user_id ? emails.get(t.created_by_user_id) : null);
  return {
    template_id: t.id,
    name: t.name,
    version: Number(t.latest_version),
    archived: t.archived_at !== null,
    archived_at: t.archived_at,
    created_at: t.created_at,
    updated_at: t.updated_at,
    created_by: createdBy,
  };
}

export function versionView(row: TemplateVersionsTable): VersionView {
  return {
    version: Number(row.version),
    created_at: row.created_at,
    created_by: { type: row.actor_type, id: row.actor_id },
    summary: JSON.parse(row.summary) as ChangeSummary,
  };
}
