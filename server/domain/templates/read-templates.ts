/** GET /templates (list, newest first, cursor paging), GET /templates/{id}, and the version history. */
import { sql } from 'kysely';
import { MoharError } from '../../../common/errors.js';
import type { Context } from '../context.js';
import { creatorEmails } from '../users/creators.js';
import { findTemplate, loadVersion } from './store.js';
import {
  embedDocuments,
  listItem,
  portableTemplate,
  versionView,
  type PortableTemplate,
  type TemplateListItem,
  type VersionView,
} from './views.js';

export const DEFAULT_PAGE = 50;
export const MAX_PAGE = 200;

export interface ListQuery {
  archived?: 'true' | 'false' | 'all';
  q?: string;
  limit?: number;
  cursor?: string;
  /** `?mine=true`, resolved by the route to the caller's user id. */
  created_by_user_id?: string;
}

function encodeCursor(createdAt: string, id: string): string {
  return Buffer.from(`${createdAt}|${id}`).toString('base64url');
}

function decodeCursor(cursor: string): { createdAt: string; id: string } {
  const [createdAt, id] = Buffer.from(cursor, 'base64url').toString().split('|');
  if (!createdAt || !id) {
    throw new MoharError('validation_failed', 'cursor is not one this API gave out', {
      errors: [{ path: 'querystring/cursor', message: 'invalid cursor' }],
    });
  }
  return { createdAt, id };
}

export async function listTemplates(
  ctx: Context,
  accountId: string,
  query: ListQuery,
): Promise<{ templates: TemplateListItem[]; next_cursor: string | null }> {
  const limit = query.limit ?? DEFAULT_PAGE;
  let select = ctx.db.selectFrom('templates').selectAll().where('account_id', '=', accountId);
  const archived = query.archived ?? 'false';
  if (archived === 'false') select = select.where('archived_at', 'is', null);
  if (archived === 'true') select = select.where('archived_at', 'is not', null);
  if (query.created_by_user_id !== undefined) {
    select = select.where('created_by_user_id', '=', query.created_by_user_id);
  }
  if (query.q !== undefined && query.q.trim() !== '') {
    // Substring match on the name, case-insensitive on both databases; % and _ in q are literal.
    const pattern = `%${query.q
      .trim()
      .toLowerCase()
      .replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    select = select.where(sql<boolean>`lower(name) like ${pattern} escape '\\'`);
  }
  if (query.cursor !== undefined) {
    const { createdAt, id } = decodeCursor(query.cursor);
    select = select.where((eb) =>
      eb.or([eb('created_at', '<', createdAt), eb.and([eb('created_at', '=', createdAt), eb('id', '<', id)])]),
    );
  }
  const rows = await select
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const emails = await creatorEmails(
    ctx.db,
    page.map((t) => t.created_by_user_id),
  );
  return {
    templates: page.map((t) => listItem(t, emails)),
    next_cursor: rows.length > limit && last ? encodeCursor(last.created_at, last.id) : null,
  };
}

export async function getTemplate(
  ctx: Context,
  accountId: string,
  templateId: string,
  options: { version?: number; includeDocuments?: boolean } = {},
): Promise<PortableTemplate> {
  const template = await findTemplate(ctx.db, accountId, templateId);
  const loaded = await loadVersion(ctx.db, templateId, options.version ?? template.latest_version);
  const portable = portableTemplate(template, loaded.row, loaded.definition);
  return options.includeDocuments ? embedDocuments(ctx, portable) : portable;
}

export async function listVersions(
  ctx: Context,
  accountId: string,
  templateId: string,
  query: { limit?: number; before?: number },
): Promise<{ versions: VersionView[]; next_before: number | null }> {
  await findTemplate(ctx.db, accountId, templateId);
  const limit = query.limit ?? DEFAULT_PAGE;
  let select = ctx.db.selectFrom('template_versions').selectAll().where('template_id', '=', templateId);
  if (query.before !== undefined) select = select.where('version', '<', query.before);
  const rows = await select
    .orderBy('version', 'desc')
    .limit(limit + 1)
    .execute();
  const page = rows.slice(0, limit).map(versionView);
  return { versions: page, next_before: rows.length > limit ? page[page.length - 1]!.version : null };
}

export async function getVersion(
  ctx: Context,
  accountId: string,
  templateId: string,
  version: number,
): Promise<VersionView & { template: PortableTemplate }> {
  const template = await findTemplate(ctx.db, accountId, templateId);
  const loaded = await loadVersion(ctx.db, templateId, version);
  return { ...versionView(loaded.row), template: portableTemplate(template, loaded.row, loaded.definition) };
}
