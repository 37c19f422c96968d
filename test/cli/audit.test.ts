/**
 * `mohar audit verify` on SQLite and PostgreSQL: exit 0 on intact chains, 1 and the first bad seq on a tampered one.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { Command } from 'commander';
import { auditCommands } from '../../cli/audit.js';
import { appendAudit } from '../../server/audit/store.js';
import { parseConfig } from '../../server/config.js';
import { DATABASES } from '../support/databases.js';
import { insertEnvelope, openAuditTestDb, swapSeq, tamper, type AuditTestDb } from '../support/audit-db.js';
import { mohar } from '../support/cli.js';

const root = new URL('../../', import.meta.url).pathname;

function run(t: AuditTestDb, args: string[]) {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    MOHAR_LOG_LEVEL: 'warn',
    MOHAR_DATA_DIR: t.database.dataDir,
  };
  if (t.database.databaseUrl) env.MOHAR_DATABASE_URL = t.database.databaseUrl;
  return spawnSync(process.execPath, mohar('audit', 'verify', ...args), {
    cwd: root,
    env,
    encoding: 'utf8',
    timeout: 60_000,
  });
}

async function withEvents(t: AuditTestDb, n: number): Promise<string> {
  const { envelopeId } = await insertEnvelope(t.db);
  for (let i = 0; i < n; i++) {
    await appendAudit(t.db, {
      envelopeId,
      actorType: 'system',
      action: i ? 'reminder.sent' : 'envelope.created',
      details: { i },
    });
  }
  return envelopeId;
}

describe('mohar audit verify', () => {
  test('registers "audit verify [--envelope <id>]" on a commander program', () => {
    const program = new Command('mohar');
    auditCommands(program, () => parseConfig({}));
    const verify = program.commands.find((c) => c.name() === 'audit')?.commands.find((c) => c.name() === 'verify');
    assert.ok(verify);
    assert.deepEqual(
      verify.options.map((o) => o.long),
      ['--envelope'],
    );
  });

  for (const kind of DATABASES) {
    describe(`on ${kind}`, () => {
      let t: AuditTestDb;
      let good: string;
      let bad: string;
      before(async () => {
        t = await openAuditTestDb(kind, 4);
        good = await withEvents(t, 5);
        bad = await withEvents(t, 5);
        await insertEnvelope(t.db); // an envelope without a trail
      });
      after(async () => {
        await t.close();
      });

      test('intact chains: OK per envelope, exit 0', () => {
        const r = run(t, []);
        assert.equal(r.status, 0, r.stderr + r.stdout);
        assert.match(r.stdout, new RegExp(`^OK +${good} +5 events +head [0-9a-f]{64}$`, 'm'));
        assert.match(r.stdout, new RegExp(`^OK +${bad} +5 events`, 'm'));
        assert.match(r.stdout, /^2 envelopes checked: 2 ok, 0 broken$/m);
        assert.match(r.stdout, /^1 envelope has no audit events/m);
        const one = run(t, ['--envelope', good]);
        assert.equal(one.status, 0, one.stderr);
        assert.equal(one.stdout.trim().split('\n').length, 1);
      });

      test('a tampered chain: BROKEN with the first bad seq, exit 1; the others stay OK', async () => {
        await tamper(t, (db) =>
          db
            .deleteFrom('audit_events')
            .where('envelope_id', '=', bad)
            .where('seq', '=', 3)
            .execute()
            .then(() => undefined),
        );
        const r = run(t, []);
        assert.equal(r.status, 1, r.stderr + r.stdout);
        assert.match(r.stdout, new RegExp(`^BROKEN +${bad} +seq 3: missing_row: seq 3 is missing$`, 'm'));
        assert.match(r.stdout, new RegExp(`^OK +${good} `, 'm'));
        assert.match(r.stdout, /^2 envelopes checked: 1 ok, 1 broken$/m);
        assert.equal(run(t, ['--envelope', bad]).status, 1);
        assert.equal(run(t, ['--envelope', good]).status, 0);

        await tamper(t, (db) => swapSeq(db, good, 1, 2));
        const swapped = run(t, ['--envelope', good]);
        assert.equal(swapped.status, 1);
        assert.match(swapped.stdout, /seq 1: reordered/);
      });

      test('an unknown envelope is an error (exit 1); an envelope without events is EMPTY (exit 0)', async () => {
        const unknown = run(t, ['--envelope', 'no-such-envelope']);
        assert.equal(unknown.status, 1);
        assert.match(unknown.stderr, /^mohar: no envelope no-such-envelope/);
        const { envelopeId } = await insertEnvelope(t.db);
        const empty = run(t, ['--envelope', envelopeId]);
        assert.equal(empty.status, 0, empty.stderr);
        assert.match(empty.stdout, /^EMPTY +.* no audit events$/m);
      });
    });
  }

  test('a database that was never migrated: a hint to run mohar migrate, exit 1', async () => {
    const t = await openAuditTestDb('sqlite');
    try {
      const { sql } = await import('kysely');
      await sql`DROP TABLE audit_events`.execute(t.db);
      const r = run(t, []);
      assert.equal(r.status, 1);
      assert.match(r.stderr, /run `mohar migrate` first/);
    } finally {
      await t.close();
    }
  });
});
