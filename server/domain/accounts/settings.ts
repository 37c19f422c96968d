/**
 * Account settings: the origins allowed to embed the signing page, and how USB DSC certificates are judged
 * (accept_untrusted_dsc: record an untrusted certificate instead of refusing it; require_dsc_identity_match:
 * refuse a certificate whose name and e-mail do not match the recipient's).
 */
import { MoharError } from '../../../common/errors.js';
import type { Context } from '../context.js';

export interface AccountSettings {
  allowed_origins: string[];
  accept_untrusted_dsc: boolean;
  require_dsc_identity_match: boolean;
}

/** What a PUT may send: the DSC switches are optional (absent: unchanged). */
export type AccountSettingsInput = Pick<AccountSettings, 'allowed_origins'> &
  Partial<Omit<AccountSettings, 'allowed_origins'>>;

function parse(text: string): AccountSettings {
  const raw = JSON.parse(text) as Partial<AccountSettings>;
  return {
    allowed_origins: Array.isArray(raw.allowed_origins) ? raw.allowed_origins : [],
    accept_untrusted_dsc: raw.accept_untrusted_dsc === true,
    require_dsc_identity_match: raw.require_dsc_identity_match === true,
  };
}

export async function readSettings(ctx: Context, accountId: string): Promise<AccountSettings> {
  const row = await ctx.db
    .selectFrom('accounts')
    .select('settings')
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  return parse(row.settings);
}

export async function allowedOrigins(ctx: Context, accountId: string): Promise<string[]> {
  return (await readSettings(ctx, accountId)).allowed_origins;
}

export async function writeSettings(
  ctx: Context,
  accountId: string,
  input: AccountSettingsInput,
  normalizeOrigin: (o: string) => string | undefined,
): Promise<AccountSettings> {
  const errors = input.allowed_origins.flatMap((o, index) =>
    normalizeOrigin(o) === undefined
      ? [{ index, path: `/allowed_origins/${index}`, message: `"${o}" is not an origin (scheme://host[:port])` }]
      : [],
  );
  if (errors.length > 0) throw new MoharError('validation_failed', errors.map((e) => e.message).join('; '), { errors });
  const row = await ctx.db
    .selectFrom('accounts')
    .select('settings')
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  const merged = {
    ...(JSON.parse(row.settings) as object),
    allowed_origins: [...new Set(input.allowed_origins.map((o) => normalizeOrigin(o)!))],
    ...(input.accept_untrusted_dsc === undefined ? {} : { accept_untrusted_dsc: input.accept_untrusted_dsc }),
    ...(input.require_dsc_identity_match === undefined
      ? {}
      : { require_dsc_identity_match: input.require_dsc_identity_match }),
  };
  await ctx.db
    .updateTable('accounts')
    .set({ settings: JSON.stringify(merged) })
    .where('id', '=', accountId)
    .execute();
  return parse(JSON.stringify(merged));
}
