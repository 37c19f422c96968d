/** The `mohar` command as a newcomer runs it: serve, migrate, admin create; settings errors. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, describe, test } from 'node:test';
import { createTestDatabase, DATABASES, type TestDatabase } from '../support/databases.js';
import { serveProcess } from '../support/process-server.js';
import { mohar } from '../support/cli.js';

const root = new URL('../../', import.meta.url).pathname;
const CLI = mohar();

function baseEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, MOHAR_LOG_LEVEL: 'warn' };
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v;
  return env;
}

function run(args: string[], env: Record<string, string | undefined>, input?: string) {
  return spawnSync(process.execPath, [...CLI, ...args], {
    cwd: root,
    env: baseEnv(env),
    input,
    encoding: 'utf8',
    timeout: 60_000,
  });
}

describe('mohar CLI', () => {
  const databases: TestDatabase[] = [];
  after(async () => {
    for (const database of databases) await database.drop();
  });

  test('a bad setting stops start-up with one line naming it', () => {
    const result = run(['serve'], { MOHAR_PORT: 'eighty' });
    assert.equal(result.status, 2);
    assert.equal(result.stderr.trim().split('\n').length, 1);
    assert.match(result.stderr, /^mohar: invalid setting MOHAR_PORT: /);
  });

  for (const kind of DATABASES) {
    test(`migrate, admin create and serve on ${kind}`, async () => {
      const database = await createTestDatabase(kind);
      databases.push(database);
      const env = { MOHAR_DATA_DIR: database.dataDir, MOHAR_DATABASE_URL: database.databaseUrl };

      const migrated = run(['migrate'], env);
      assert.equal(migrated.status, 0, migrated.stderr);
      assert.match(migrated.stdout, /applied: 0001_initial, 0002_blobs/);
      assert.match(run(['migrate'], env).stdout, /schema is up to date/);

      // First start on an empty database: the default account and a generated password, printed once.
      const first = await serveProcess(database);
      try {
        const password = /Generated password \(shown once, not stored in clear\): (\S+)/.exec(first.output)?.[1];
        assert.ok(password, first.output);
        const login = await fetch(`${first.url}/backend/othercompanyapi/auth/login/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: 'admin@localhost', password }),
        });
        assert.equal(login.status, 200);
        // The root opens the office console.
        const landing = await fetch(`${first.url}/`);
        assert.equal(new URL(landing.url).pathname, '/app/');
        assert.match(await landing.text(), /<title>Mohar office<\/title>/);
      } finally {
        first.child.kill('SIGTERM');
      }

      const created = run(
        ['admin', 'create', '--email', 'Office@Example.com', '--account', 'Sharma & Co', '--test-mode'],
        env,
        'a strong passphrase here\n',
      );
      assert.equal(created.status, 0, created.stderr);
      assert.match(
        created.stdout,
        /created account .* \(Sharma & Co, test mode\) with api_admin login office@example.com/,
      );
      const duplicate = run(
        ['admin', 'create', '--email', 'office@example.com', '--account', 'Again'],
        env,
        'a strong passphrase here\n',
      );
      assert.notEqual(duplicate.status, 0);
      assert.match(duplicate.stderr, /exists already/);
      const weak = run(['admin', 'create', '--email', 'weak@example.com', '--account', 'Weak'], env, 'short\n');
      assert.notEqual(weak.status, 0);
      assert.match(weak.stderr, /at least 12 characters/);

      // Second start: no new password; the created login works and may issue test keys.
      const second = await serveProcess(database);
      try {
        assert.ok(!/Generated password/.test(second.output));
        const login = await fetch(`${second.url}/backend/othercompanyapi/auth/login/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: 'office@example.com', password: 'a strong passphrase here' }),
        });
        const { access_token } = (await login.json()) as { access_token: string };
        const key = await fetch(`${second.url}/backend/othercompanyapi/apikey/generate/`, {
          method: 'POST',
          headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
          body: '{"mode":"test"}',
        });
        assert.equal(key.status, 201);
        assert.match(((await key.json()) as { api_key: string }).api_key, /^qsk_test_/);
      } finally {
        second.child.kill('SIGTERM');
      }
    });
  }
});
