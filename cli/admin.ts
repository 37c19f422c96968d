import type { Command } from 'commander';
import type { Config } from '../server/config.js';
import { createAccount } from '../server/domain/accounts/create-account.js';
import { unlockUser } from '../server/domain/users/unlock.js';
import { openRuntime } from '../server/runtime.js';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export function adminCommands(program: Command, loadConfig: () => Config): void {
  const admin = program.command('admin').description('manage accounts');
  admin
    .command('create')
    .description('create an account and its api_admin login; the password is read from stdin')
    .requiredOption('--email <email>', 'login e-mail of the api_admin user')
    .requiredOption('--account <name>', 'account name')
    .option('--test-mode', 'enable sandbox (qsk_test_) keys for the account', false)
    .action(async (options: { email: string; account: string; testMode: boolean }) => {
      // First line of stdin only: `echo secret | mohar admin create ...` works, nothing lands in argv or history.
      const password = (await readStdin()).split(/\r?\n/)[0] ?? '';
      const runtime = await openRuntime(loadConfig());
      try {
        const created = await createAccount(runtime.ctx, {
          name: options.account,
          email: options.email,
          password,
          testMode: options.testMode,
        });
        process.stdout.write(
          `created account ${created.accountId} (${options.account}${options.testMode ? ', test mode' : ''}) with api_admin login ${created.email}\n`,
        );
      } finally {
        await runtime.close();
      }
    });
  admin
    .command('unlock')
    .description('lift the login lockout of a user (e.g. the default admin@localhost after too many failed logins)')
    .argument('<email>', 'login e-mail of the user')
    .action(async (email: string) => {
      const runtime = await openRuntime(loadConfig());
      try {
        const result = await unlockUser(runtime.ctx, email);
        process.stdout.write(
          `${result.wasLocked ? 'unlocked' : 'was not locked (failed logins forgotten)'}: ${result.email}\n`,
        );
      } finally {
        await runtime.close();
      }
    });
}
