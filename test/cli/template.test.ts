/**
 * `mohar template export` from one installation's database and `mohar template import` into another's, on both
 * databases.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DATABASES } from '../support/databases.js';
import { API, startTestServer, type TestAccount, type TestServer } from '../support/server.js';
import { createSaleTemplate, instantiate, PEOPLE } from '../support/templates.js';
import { mohar } from '../support/cli.js';

const root = new URL('../../', import.meta.url).pathname;

function run(server: TestServer, args: string[]) {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    MOHAR_LOG_LEVEL: 'warn',
    MOHAR_DATA_DIR: server.ctx.config.dataDir,
  };
  if (server.ctx.config.databaseUrl) env.MOHAR_DATABASE_URL = server.ctx.config.databaseUrl;
  return spawnSync(process.execPath, mohar(...args), {
    cwd: root,
    env,
    encoding: 'utf8',
    timeout: 60_000,
    maxBuffer: 64 * 1024 * 1024,
  });
}

for (const kind of DATABASES) {
  describe(`mohar template export/import on ${kind}`, () => {
    let source: TestServer;
    let target: TestServer;
    let sourceAccount: TestAccount;
    let targetAccount: TestAccount;
    const dir = mkdtempSync(join(tmpdir(), 'mohar-template-cli-'));
    before(async () => {
      source = await startTestServer(kind);
      target = await startTestServer(kind);
      sourceAccount = await source.newAccount();
      targetAccount = await target.newAccount();
    });
    after(async () => {
      await source?.close();
      await target?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    test('export > t.json, import t.json --account, then instantiate on the target', async () => {
      const { id, pdf } = await createSaleTemplate(source, sourceAccount.key, 'CLI sale');
      const exported = run(source, ['template', 'export', id]);
      assert.equal(exported.status, 0, exported.stderr);
      const portable = JSON.parse(exported.stdout);
      assert.equal(portable.format, 'mohar.template/v1');
      assert.deepEqual(Buffer.from(portable.documents[0].content_base64, 'base64'), pdf);
      const file = join(dir, 't.json');
      writeFileSync(file, exported.stdout);

      const ambiguous = run(target, ['template', 'import', file]);
      assert.notEqual(
        ambiguous.status,
        0,
        'the target has two accounts (the bootstrap one and ours): --account is needed',
      );
      assert.match(ambiguous.stderr, /--account/);
      const imported = run(target, ['template', 'import', file, '--account', targetAccount.email]);
      assert.equal(imported.status, 0, imported.stderr);
      const templateId = /imported template (\S+)/.exec(imported.stdout)![1]!;
      const copy = (await target.request('GET', `${API}/templates/${templateId}`, { key: targetAccount.key })).json();
      assert.equal(copy.name, 'CLI sale');
      assert.deepEqual(copy.documents[0].fields, portable.documents[0].fields);
      const envelope = await instantiate(target, targetAccount.key, templateId, { recipients: PEOPLE });
      assert.equal(envelope.statusCode, 201, envelope.body);

      const missing = run(source, ['template', 'export', '0193f0e2-6c1a-7b3e-9d2f-4a5b6c7d8e9f']);
      assert.equal(missing.status, 1);
      assert.match(missing.stderr, /no template/);
    });
  });
}
