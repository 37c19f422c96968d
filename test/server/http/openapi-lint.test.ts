/**
 * Both OpenAPI documents pass Redocly CLI's lint (recommended rules, redocly.yaml at the repository root) with no
 * error. The documents come from the route schemas alone, so one database kind is enough to build them.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { ROOT } from '../../support/build-once.js';
import { API, LEGACY, startTestServer, type TestServer } from '../../support/server.js';

const run = promisify(execFile);
const REDOCLY = join(ROOT, 'node_modules/.bin/redocly');

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
}

/** `redocly lint` of one document; resolves with its JSON report whatever the exit code, and that code. */
async function lint(file: string): Promise<{ exitCode: number; report: LintReport }> {
  const args = ['lint', '--config', join(ROOT, 'redocly.yaml'), '--format=json', '--max-problems=1000', file];
  // No telemetry or update check from a test run (the suite must not need the network).
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
  try {
    const { stdout } = await run(REDOCLY, args, { env, maxBuffer: 64 * 1024 * 1024 });
    return { exitCode: 0, report: JSON.parse(stdout) as LintReport };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    if (!failed.stdout) throw new Error(`redocly lint did not run: ${failed.stderr ?? String(error)}`);
    return { exitCode: failed.code ?? -1, report: JSON.parse(failed.stdout) as LintReport };
  }
}

describe('Redocly lint of the OpenAPI documents', () => {
  let server: TestServer;
  let dir: string;
  before(async () => {
    server = await startTestServer('sqlite');
    dir = await mkdtemp(join(tmpdir(), 'mohar-openapi-'));
  });
  after(async () => {
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  for (const [name, base] of [
    ['envelope API v1', API],
    ['legacy API', LEGACY],
  ] as const) {
    test(`the ${name} document has no lint error`, async () => {
      const response = await server.request('GET', `${base}/openapi.json`);
      assert.equal(response.statusCode, 200);
      const file = join(dir, `${name.replace(/\W+/g, '-')}.json`);
      await writeFile(file, response.body);
      const { exitCode, report } = await lint(file);
      const errors = report.problems
        .filter((p) => p.severity === 'error')
        .map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
      assert.deepEqual(errors, [], `${name}: lint errors`);
      assert.equal(report.totals.errors, 0);
      assert.equal(exitCode, 0, `redocly lint exits 0 for the ${name}`);
    });
  }

  test('the v1 document has no path with a trailing slash (the rule is off only for the legacy paths)', async () => {
    const doc = (await server.request('GET', `${API}/openapi.json`)).json() as { paths: Record<string, unknown> };
    assert.deepEqual(
      Object.keys(doc.paths).filter((path) => path.length > 1 && path.endsWith('/')),
      [],
    );
  });
});
