/** First start: an empty database gets one account and its api_admin user. */
import { generatePassword } from '../auth/passwords.js';
import type { Context } from '../context.js';
import { createAccount } from './create-account.js';

export interface BootstrapResult {
  readonly email: string;
  /** Present only when Mohar generated it: shown once, never stored in clear. */
  readonly generatedPassword?: string;
}

export async function bootstrapFirstAccount(ctx: Context): Promise<BootstrapResult | undefined> {
  const existing = await ctx.db.selectFrom('accounts').select('id').limit(1).executeTakeFirst();
  if (existing) return undefined;
  const email = ctx.config.adminEmail ?? 'admin@localhost';
  const generatedPassword = ctx.config.adminPassword === undefined ? generatePassword() : undefined;
  await createAccount(ctx, {
    name: 'Default account',
    email,
    password: ctx.config.adminPassword ?? generatedPassword!,
  });
  return generatedPassword === undefined ? { email } : { email, generatedPassword };
}
