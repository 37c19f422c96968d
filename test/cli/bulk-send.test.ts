/**
 * `mohar bulk-send` against a real `mohar serve` process: --sample, every bad CSV line
 * printed with its line number (local and server-side problems) and nothing queued, a batch followed to
 * the end (plain progress lines when not a TTY), a rerun of the same file replaying the first batch, and
 * failed rows listed at the end with a non-zero exit. On SQLite only: the command is an HTTP client, and what
 * the server does behind those calls is tested on both databases in test/server/bulk.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';
import { call, serveProcess } from '../support/process-server.js';
import { API } from '../support/server.js';
import { makeSourceOverHttp, PROCESS_ADMIN, processApiKey } from '../server/bulk/helpers.js';
import { mohar } from '../support/cli.js';

const root = new URL('../../', import.meta.url).pathname;
const ROWS = 40;

function csv(lines: string[]): string {
  return `${lines.join('\r\n')}\r\n`;
}

function goodLine(i: number): string {
  return `cli-${i},"Renewal ${i}, 2027",Customer ${i},c${i}@example.com,Witness ${i},w${i}@example.com,"Rao ""${i}"" & Sons",${1000 + i},2027-01-15`;
}
const HEADER =
  'external_id,title,recipient_1_name,recipient_1_email,recipient_2_name,recipient_2_email,field.Customer,field.Amount,field.Start';

for (const kind of ['sqlite'] as const) {
  describe(`mohar bulk-send on ${kind}`, () => {
    let database: TestDatabase;
    let child: ChildProcess;
    let url: string;
    let key: string;
    let source: { id: string; documentId: string };
    const dir = mkdtempSync(join(tmpdir(), 'mohar-bulk-cli-'));
    const env = () => ({ PATH: process.env.PATH, HOME: process.env.HOME, MOHAR_URL: url, MOHAR_API_KEY: key });
    const run = (args: string[]) =>
      spawnSync(process.execPath, mohar('bulk-send', ...args), {
        cwd: root,
        env: env(),
        encoding: 'utf8',
        timeout: 120_000,
      });
    const batches = async () =>
      (await call(url, 'GET', `${API}/bulk-sends`, { key })).json().bulk_sends as { bulk_send_id: string }[];
    const file = (name: string, text: string) => {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    };

    before(async () => {
      database = await createTestDatabase(kind);
      ({ child, url } = await serveProcess(database, PROCESS_ADMIN));
      key = await processApiKey(url);
      source = await makeSourceOverHttp(url, key);
    });
    after(async () => {
      child?.kill('SIGTERM');
      if (child && child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
      await database?.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    test('--sample prints the header for the source; bad lines are printed with their line numbers and nothing is queued', async () => {
      const sample = run([source.id, '--sample']);
      assert.equal(sample.status, 0, sample.stderr);
      assert.equal(
        sample.stdout.split('\r\n')[0],
        'external_id,title,recipient_1_name,recipient_1_email,recipient_2_name,recipient_2_email,field.Customer,field.Amount,field.Start',
      );

      // Local problems (the header and the cells): every one listed, nothing sent.
      const local = run([
        source.id,
        file('local.csv', csv([`${HEADER},colour`, `${goodLine(1)},red`, 'cli-2,,A,a@example.com,B,,x,1,2027-01-15,'])),
      ]);
      assert.equal(local.status, 1);
      assert.match(local.stderr, /line 1, colour: unknown column/);
      assert.match(local.stderr, /line 3, recipient_2_email: recipient 2 has no e-mail/);

      // Problems only the server can see (a value breaking its field's rules, a bad e-mail): by CSV line and column.
      const lines = [
        HEADER,
        goodLine(1),
        goodLine(2).replace(',1002,', ',lots,'),
        goodLine(3),
        goodLine(4).replace('w4@example.com', 'not-an-email'),
      ];
      const remote = run([source.id, file('remote.csv', csv(lines))]);
      assert.equal(remote.status, 1, remote.stdout);
      assert.match(remote.stderr, /refused \(422 invalid_rows\)/);
      assert.match(remote.stderr, /line 5, recipient_2_email: /);
      const dry = run([source.id, file('dry.csv', csv([HEADER, goodLine(1)])), '--dry-run']);
      assert.equal(dry.status, 0, dry.stderr);
      assert.match(dry.stdout, /1 row\(s\) are valid; nothing was sent/);
      assert.equal((await batches()).length, 0, 'nothing queued');
      const stray = run([source.id, file('stray.csv', csv([HEADER, goodLine(1)])), '--api-key', 'qsk_live_wrong']);
      assert.equal(stray.status, 1);
      assert.match(stray.stderr, /refused \(401/);
    });

    test(`${ROWS} lines: followed to the end with plain progress lines, every envelope with its values; the same file again replays`, async () => {
      const path = file('good.csv', csv([HEADER, ...Array.from({ length: ROWS }, (_, i) => goodLine(i))]));
      const first = run([source.id, path, '--interval', '0.2']);
      assert.equal(first.status, 0, first.stdout + first.stderr);
      const id = /queued bulk send (\S+): 40 row\(s\)/.exec(first.stdout)?.[1];
      assert.ok(id, first.stdout);
      assert.match(first.stdout, new RegExp(`bulk send ${id}: completed; ${ROWS} of ${ROWS} sent, 0 failed`));
      assert.match(
        first.stderr,
        new RegExp(`^completed: created ${ROWS}, sent ${ROWS}, failed 0 of ${ROWS}$`, 'm'),
        'one plain line per change',
      );
      assert.ok(
        !first.stderr.includes('\r') && !first.stderr.includes('\u001b['),
        'no bar drawing when stderr is not a terminal',
      );

      const rows = (await call(url, 'GET', `${API}/bulk-sends/${id}/envelopes?limit=500`, { key })).json().envelopes;
      assert.equal(rows.length, ROWS);
      const envelope = (await call(url, 'GET', `${API}/envelopes/${rows[7].envelope_id}`, { key })).json();
      assert.equal(envelope.title, 'Renewal 7, 2027');
      assert.deepEqual(
        envelope.recipients.map((r: { email: string }) => r.email),
        ['c7@example.com', 'w7@example.com'],
      );
      // (That the values reach the PDF's form fields is test/server/bulk/fan-out.test.ts's job.)
      const values = envelope.documents[0].fields.map((f: { label: string | null; value: string | null }) => [
        f.label,
        f.value,
      ]);
      assert.deepEqual(
        values.filter(([label]: [string | null]) => label !== null),
        [
          ['Customer', 'Rao "7" & Sons'],
          ['Amount', '1007'],
          ['Start', '2027-01-15'],
        ],
      );

      const again = run([source.id, path, '--interval', '0.2']);
      assert.equal(again.status, 0, again.stderr);
      assert.match(again.stdout, new RegExp(`was sent before as bulk send ${id}: following it`));
      assert.equal((await batches()).length, 1, 'the rerun queued nothing');
    });

    test('rows that fail at send time are listed with their CSV lines at the end; exit 1', async () => {
      const lines = Array.from({ length: 60 }, (_, i) => goodLine(500 + i));
      const path = file('late.csv', csv([HEADER, ...lines]));
      // The last row's external_id is taken right after the batch is queued, long before the job reaches it.
      const cli = spawn(process.execPath, mohar('bulk-send', source.id, path, '--interval', '0.2'), {
        cwd: root,
        env: env(),
      });
      let stdout = '';
      let stderr = '';
      cli.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exit = new Promise<number | null>((resolve) => cli.once('exit', resolve));
      await new Promise<void>((resolve) =>
        cli.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          if (stdout.includes('queued bulk send')) resolve();
        }),
      );
      const taken = await call(url, 'POST', `${API}/envelopes`, {
        key,
        json: { title: 'Taken', external_id: 'cli-559' },
      });
      assert.equal(taken.status, 201);
      assert.equal(await exit, 1, stdout + stderr);
      assert.match(stdout, /completed_with_errors; 59 of 60 sent, 1 failed/);
      assert.match(stdout, /failed: row 59 \(line 61, cli-559\): .*external_id.*\(external_id_conflict\)/);
    });
  });
}
