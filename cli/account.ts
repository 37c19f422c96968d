/**
 * `mohar account suspend|resume|limit|show <account>`: the operator's switches for an account, named by its id
 * or by the e-mail of one of its logins. Suspension refuses every call made with the account's API keys
 * (403 account_suspended); `limit` sets the monthly call quota of the legacy document create call.
 */
import type { Command } from 'commander';
import type { Config } from '../server/config.js';
import {
  accountState,
  resolveAccount,
  setMonthlyCallLimit,
  setSuspended,
  type AccountState,
} from '../server/domain/accounts/account-admin.js';
import type { Context } from '../server/domain/context.js';
import { openRuntime } from '../server/runtime.js';

export function describeAccount(state: AccountState): string {
  const limit = state.monthly_call_limit === null ? 'no monthly limit' : `monthly limit ${state.monthly_call_limit}`;
  return `account ${state.account_id} (${state.name}): ${state.suspended ? 'SUSPENDED' : 'active'}, ${limit}, ${state.calls_this_month} calls this month${state.test_mode ? ', test mode' : ''}\n`;
}

/** "none" or "unlimited" remove the limit; otherwise a whole number >= 0. */
export function parseLimit(raw: string): number | null {
  if (/^(none|unlimited)$/i.test(raw)) return null;
  if (!/^\d+$/.test(raw)) throw new Error(`the limit must be a whole number or "none" (got "${raw}")`);
  return Number(raw);
}

async function withAccount(
  loadConfig: () => Config,
  ref: string,
  action: (ctx: Context, accountId: string) => Promise<AccountState>,
): Promise<void> {
  const runtime = await openRuntime(loadConfig());
  try {
    const accountId = await resolveAccount(runtime.ctx, ref);
    process.stdout.write(describeAccount(await action(runtime.ctx, accountId)));
  } finally {
    await runtime.close();
  }
}

export function accountCommands(program: Command, loadConfig: () => Config): void {
  const account = program.command('account').description('suspend, resume or limit an account (by id or login e-mail)');
  account
    .command('suspend <account>')
    .description("refuse every call made with the account's API keys or its users' logins (403 account_suspended)")
    .action((ref: string) => withAccount(loadConfig, ref, (ctx, id) => setSuspended(ctx, id, true)));
  account
    .command('resume <account>')
    .description('lift a suspension')
    .action((ref: string) => withAccount(loadConfig, ref, (ctx, id) => setSuspended(ctx, id, false)));
  account
    .command('limit <account> <calls>')
    .description('monthly call quota of the legacy document create call: a whole number, or "none"')
    .action((ref: string, calls: string) => {
      const limit = parseLimit(calls);
      return withAccount(loadConfig, ref, (ctx, id) => setMonthlyCallLimit(ctx, id, limit));
    });
  account
    .command('show <account>')
    .description('suspension, monthly limit and calls this month')
    .action((ref: string) => withAccount(loadConfig, ref, accountState));
}
