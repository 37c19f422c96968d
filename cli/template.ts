/**
 * `mohar template export <id> > t.json` and `mohar template import t.json [--account <id|e-mail>]`: move a
 * template between installations as one JSON file (the portable template with its PDFs embedded). Works on
 * the configured database directly, like the other operator commands; the import is recorded as made by an
 * admin and sends template.created to the account's webhook.
 */
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { MoharError } from '../common/errors.js';
import type { Config } from '../server/config.js';
import { resolveAccount } from '../server/domain/accounts/account-admin.js';
import type { Context } from '../server/domain/context.js';
import { importTemplate } from '../server/domain/templates/create-template.js';
import type { DefinitionInput } from '../server/domain/templates/model.js';
import { getTemplate } from '../server/domain/templates/read-templates.js';
import { openRuntime } from '../server/runtime.js';

export async function exportTemplate(ctx: Context, templateId: string, version?: number): Promise<string> {
  const row = await ctx.db.selectFrom('templates').select('account_id').where('id', '=', templateId).executeTakeFirst();
  if (!row) throw new MoharError('template_not_found', `no template ${templateId}`);
  const portable = await getTemplate(ctx, row.account_id, templateId, {
    includeDocuments: true,
    ...(version === undefined ? {} : { version }),
  });
  return `${JSON.stringify(portable, null, 2)}\n`;
}

async function accountFor(ctx: Context, ref: string | undefined): Promise<string> {
  if (ref !== undefined) return resolveAccount(ctx, ref);
  const accounts = await ctx.db.selectFrom('accounts').select('id').limit(2).execute();
  if (accounts.length === 1) return accounts[0]!.id;
  throw new MoharError(
    'validation_failed',
    'this installation has several accounts: name one with --account <id or login e-mail>',
    { errors: [{ path: 'account', message: 'required' }] },
  );
}

export async function importTemplateFile(
  ctx: Context,
  file: string,
  accountRef?: string,
): Promise<{ template_id: string; name: string; account_id: string }> {
  let portable: unknown;
  try {
    portable = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new MoharError('malformed_json', `${file} is not a template export: ${(error as Error).message}`);
  }
  if (portable === null || typeof portable !== 'object' || typeof (portable as { name?: unknown }).name !== 'string') {
    throw new MoharError('validation_failed', `${file} is not a template export (mohar template export)`);
  }
  const accountId = await accountFor(ctx, accountRef);
  const created = await importTemplate(
    ctx,
    accountId,
    { type: 'admin', id: null },
    portable as DefinitionInput & { format: string },
  );
  return { template_id: created.template_id, name: created.name, account_id: accountId };
}

export function templateCommands(program: Command, loadConfig: () => Config): void {
  const template = program.command('template').description('templates: export and import between installations');
  template
    .command('export <template_id>')
    .description('print the portable template with its PDFs embedded (JSON) to stdout')
    .option('--template-version <n>', 'export this version (default: the latest)')
    .action(async (id: string, options: { templateVersion?: string }) => {
      const runtime = await openRuntime(loadConfig());
      try {
        process.stdout.write(
          await exportTemplate(
            runtime.ctx,
            id,
            options.templateVersion === undefined ? undefined : Number(options.templateVersion),
          ),
        );
      } finally {
        await runtime.close();
      }
    });
  template
    .command('import <file>')
    .description('create a template from an export (its PDFs are stored in this installation)')
    .option('--account <account>', 'the account (id or login e-mail); needed when there are several')
    .action(async (file: string, options: { account?: string }) => {
      const runtime = await openRuntime(loadConfig());
      try {
        const created = await importTemplateFile(runtime.ctx, file, options.account);
        process.stdout.write(
          `imported template ${created.template_id} (${created.name}) into account ${created.account_id}\n`,
        );
      } finally {
        await runtime.close();
      }
    });
}
