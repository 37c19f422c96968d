/** `mohar admin unlock EMAIL` lifts a login lockout (issue 15). */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, describe, test } from 'node:test';
import { parseConfig } from '../../server/config.js';
import { openRuntime } from '../../server/runtime.js';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';
import { mohar } from '../support/cli.js';

const root = new URL('../../', import.meta.url).pathname;

describe('mohar admin unlock', () => {
  let database: TestDatabase | undefined;
  after(() => database?.drop());

  test('unlocks a locked login; an unknown e-mail is an error', async () => {
    database = await createTestDatabase('sqlite');
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      MOHAR_LOG_LEVEL: 'warn',
      MOHAR_DATA_DIR: database.dataDir,
    };
    const run = (args: string[], input?: string) =>
      spawnSync(process.execPath, mohar(...args), {
        cwd: root,
        env,
        input,
        encoding: 'utf8',
        timeout: 60_000,
      });
    assert.equal(
      run(['admin', 'create', '--email', 'locked@example.com', '--account', 'Locked'], 'a strong passphrase here\n')
        .status,
      0,
    );
    const lockedUntil = async (set?: string): Promise<string | null> => {
      const runtime = await openRuntime(parseConfig({ MOHAR_DATA_DIR: database!.dataDir }));
      try {
        if (set) {
          await runtime.ctx.db
            .updateTable('users')
            .set({ locked_until: set })
            .where('email', '=', 'locked@example.com')
            .execute();
        }
        return (
          await runtime.ctx.db
            .selectFrom('users')
            .select('locked_until')
            .where('email', '=', 'locked@example.com')
            .executeTakeFirstOrThrow()
        ).locked_until;
      } finally {
        await runtime.close();
      }
    };
    await lockedUntil(new Date(Date.now() + 600_000).toISOString());
    const unlocked = run(['admin', 'unlock', 'Locked@Example.com']);
    assert.equal(unlocked.status, 0, unlocked.stderr);
    assert.match(unlocked.stdout, /^unlocked: locked@example.com/);
    assert.equal(await lockedUntil(), null);
    const unknown = run(['admin', 'unlock', 'nobody@example.com']);
    assert.notEqual(unknown.status, 0);
    assert.match(unknown.stderr, /no user with e-mail nobody@example.com/);
  });
});
