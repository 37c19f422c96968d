/**
 * Account settings: the origins allowed to embed the signing page, and how USB DSC certificates are judged
 * (accept_untrusted_dsc: record an untrusted certificate instead of refusing it). Identity binding, three
 * levels: by default a certificate whose name and e-mail both differ from the recipient's is refused;
 * accept_dsc_identity_mismatch records it instead; require_dsc_identity_match (older, kept) is stricter: the
 * name must match and the e-mail must not differ. Both at once contradict each other and are refused.
 */
import { MoharError } from '../../../common/errors.js';
import type { IdentityPolicy } from '../trust/identity.js';
import type { Context } from '../context.js';

export interface AccountSettings {
  allowed_origins: string[];
  accept_untrusted_dsc: boolean;
  accept_dsc_identity_mismatch: boolean;
  require_dsc_identity_match: boolean;
}

/** What a PUT may send: the DSC switches are optional (absent: unchanged). */
export type AccountSettingsInput = Pick<AccountSettings, 'allowed_origins'> &
  Partial<Omit<AccountSettings, 'allowed_origins'>>;

const DSC_SWITCHES = ['accept_untrusted_dsc', 'accept_dsc_identity_mismatch', 'require_dsc_identity_match'] as const;

function parse(text: string): AccountSettings {
  const raw = JSON.parse(text) as Partial<AccountSettings>;
  return {
    allowed_origins: Array.isArray(raw.allowed_origins) ? raw.allowed_origins : [],
    accept_untrusted_dsc: raw.accept_untrusted_dsc === true,
    accept_dsc_identity_mismatch: raw.accept_dsc_identity_mismatch === true,
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

export function identityPolicy(settings: AccountSettings): IdentityPolicy {
  if (settings.require_dsc_identity_match) return 'name_and_email';
  return settings.accept_dsc_identity_mismatch ? 'record_only' : 'name_or_email';
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
  const switches = Object.fromEntries(
    DSC_SWITCHES.flatMap((name) => (input[name] === undefined ? [] : [[name, input[name]]])),
  );
  const merged = {
    ...(JSON.parse(row.settings) as object),
    allowed_origins: [...new Set(input.allowed_origins.map((o) => normalizeOrigin(o)!))],
    ...switches,
  };
  const result = parse(JSON.stringify(merged));
  if (result.accept_dsc_identity_mismatch && result.require_dsc_identity_match) {
    const message =
      'accept_dsc_identity_mismatch and require_dsc_identity_match contradict each other: set one of them to false';
    throw new MoharError('validation_failed', message, {
      errors: [{ path: '/accept_dsc_identity_mismatch', message }],
    });
  }
  await ctx.db
    .updateTable('accounts')
    .set({ settings: JSON.stringify(merged) })
    .where('id', '=', accountId)
    .execute();
  return result;
}
