/**
 * DELETE /templates/{id} archives (a soft delete: the template and its versions stay readable, but it
 * cannot be instantiated or patched); POST /templates/{id}/restore brings it back. Archiving an archived
 * template (or restoring an active one) changes nothing and records nothing.
 */
import type { Context } from '../context.js';
import { iso } from '../time.js';
import type { TemplateActor } from './model.js';
import { loadVersion, recordChange, withTemplate } from './store.js';
import { portableTemplate, type PortableTemplate } from './views.js';

export function archiveTemplate(
  ctx: Context,
  accountId: string,
  actor: TemplateActor,
  templateId: string,
): Promise<PortableTemplate> {
  return setArchived(ctx, accountId, actor, templateId, true);
}

export function restoreTemplate(
  ctx: Context,
  accountId: string,
  actor: TemplateActor,
  templateId: string,
): Promise<PortableTemplate> {
  return setArchived(ctx, accountId, actor, templateId, false);
}

async function setArchived(
  ctx: Context,
  accountId: string,
  actor: TemplateActor,
  templateId: string,
  archive: boolean,
): Promise<PortableTemplate> {
  return withTemplate(ctx, accountId, templateId, async (trx, template) => {
    const latest = await loadVersion(trx, templateId, template.latest_version);
    if ((template.archived_at !== null) === archive) return portableTemplate(template, latest.row, latest.definition);
    const at = iso(ctx.now());
    const next = { ...template, archived_at: archive ? at : null, updated_at: at };
    await recordChange(
      trx,
      { accountId, templateId, event: archive ? 'template.archived' : 'template.restored', actor, at, template: next },
      false,
    );
    return portableTemplate(next, latest.row, latest.definition);
  });
}
