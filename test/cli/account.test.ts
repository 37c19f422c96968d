/** `mohar account suspend|resume|limit|show` on SQLite and PostgreSQL, against a running server. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, describe, test } from 'node:test';
import { parseLimit } from '../../cli/account.js';
import { createTestDatabase, DATABASES, type TestDatabase } from '../support/databases.js';
import { call, serveProcess } from '../support/process-server.js';
import { mohar } from '../support/cli.js';

const root = new URL('../../', import.meta.url).pathname;

function run(database: TestDatabase, args: string[], input?: string) {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    MOHAR_LOG_LEVEL: 'warn',
    MOHAR_DATA_DIR: database.dataDir,
  };
  if (database.databaseUrl) env.MOHAR_DATABASE_URL = database.databaseUrl;
  return spawnSync(process.execPath, mohar(...args), {
    cwd: root,
    env,
    input,
    encoding: 'utf8',
    timeout: 60_000,
  });
}

/** Polls until the call answers `status` (a running SQLite server trusts a cached key for up to 5 s). */
async function eventually(status: number, make: () => Promise<{ status: number }>): Promise<void> {
  let last = 0;
  for (let i = 0; i < 40; i++) {
    last = (await make()).status;
    if (last === status) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  assert.fail(`expected ${status}, still ${last}`);
}

describe('mohar account', () => {
  test('limit takes a whole number or none', () => {
    assert.equal(parseLimit('0'), 0);
    assert.equal(parseLimit('1500'), 1500);
    assert.equal(parseLimit('none'), null);
    assert.equal(parseLimit('Unlimited'), null);
    assert.throws(() => parseLimit('-1'), /whole number/);
    assert.throws(() => parseLimit('1e3'), /whole number/);
  });

  const databases: TestDatabase[] = [];
  after(async () => {
    for (const database of databases) await database.drop();
  });

  for (const kind of DATABASES) {
    test(`suspend, resume, limit and show on ${kind}`, async () => {
      const database = await createTestDatabase(kind);
      databases.push(database);
      const created = run(
        database,
        ['admin', 'create', '--email', 'ops@example.com', '--account', 'Mehta Traders'],
        'a strong passphrase here\n',
      );
      assert.equal(created.status, 0, created.stderr);
      const accountId = /created account (\S+)/.exec(created.stdout)![1]!;

      const limited = run(database, ['account', 'limit', 'ops@example.com', '250']);
      assert.equal(limited.status, 0, limited.stderr);
      assert.equal(
        limited.stdout,
        `account ${accountId} (Mehta Traders): active, monthly limit 250, 0 calls this month\n`,
      );

      const server = await serveProcess(database);
      try {
        const login = await call(server.url, 'POST', '/backend/othercompanyapi/auth/login/', {
          json: { email: 'ops@example.com', password: 'a strong passphrase here' },
        });
        const key = (
          await call(server.url, 'POST', '/backend/othercompanyapi/apikey/generate/', {
            token: login.json().access_token,
          })
        ).json().api_key as string;
        const usage = await call(server.url, 'GET', '/backend/othercompanyapi/usage/summary/', { key });
        assert.equal(usage.status, 200);
        assert.equal(usage.json().monthly_call_limit, 250);

        const suspended = run(database, ['account', 'suspend', accountId]);
        assert.equal(suspended.status, 0, suspended.stderr);
        assert.match(suspended.stdout, /: SUSPENDED, monthly limit 250/);
        await eventually(403, () => call(server.url, 'GET', '/backend/othercompanyapi/usage/summary/', { key }));
        const refused = await call(server.url, 'GET', '/backend/othercompanyapi/usage/summary/', { key });
        assert.equal(refused.json().code, 'account_suspended');

        assert.match(run(database, ['account', 'show', 'OPS@example.com']).stdout, /SUSPENDED/);
        const resumed = run(database, ['account', 'resume', 'ops@example.com']);
        assert.equal(resumed.status, 0, resumed.stderr);
        assert.match(resumed.stdout, /: active, /);
        await eventually(200, () => call(server.url, 'GET', '/backend/othercompanyapi/usage/summary/', { key }));

        assert.match(run(database, ['account', 'limit', accountId, 'none']).stdout, /no monthly limit/);
        assert.equal(
          (await call(server.url, 'GET', '/backend/othercompanyapi/usage/summary/', { key })).json().monthly_call_limit,
          null,
        );
      } finally {
        server.child.kill('SIGTERM');
      }

      const unknown = run(database, ['account', 'suspend', 'nobody@example.com']);
      assert.equal(unknown.status, 1);
      assert.match(unknown.stderr, /no account with id or login e-mail "nobody@example.com"/);
      const bad = run(database, ['account', 'limit', accountId, 'lots']);
      assert.equal(bad.status, 1);
      assert.match(bad.stderr, /whole number or "none"/);
    });
  }
});
