/**
 * Every GitHub workflow of the repository passes action-validator (@action-validator/cli: GitHub's workflow
 * schema, from the npm registry), and a deliberately broken copy does not, so this test can fail.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';

const root = new URL('../../', import.meta.url).pathname;
const WORKFLOWS = join(root, '.github', 'workflows');
const VALIDATOR = join(root, 'node_modules', '@action-validator', 'cli', 'cli.mjs');

interface Verdict {
  readonly status: number | null;
  readonly output: string;
}

function validate(path: string): Verdict {
  const run = spawnSync(process.execPath, [VALIDATOR, path], { encoding: 'utf8', timeout: 60_000 });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

const scratch = mkdtempSync(join(tmpdir(), 'mohar-workflows-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

describe('GitHub workflows against the schema (action-validator)', () => {
  const files = readdirSync(WORKFLOWS).filter((name) => /\.ya?ml$/.test(name));

  test('there is a desktop workflow to check', () => {
    assert.ok(files.includes('desktop.yml'), `workflows: ${files.join(', ')}`);
  });

  for (const name of files) {
    test(`${name} is a valid workflow`, () => {
      const verdict = validate(join(WORKFLOWS, name));
      assert.equal(verdict.status, 0, verdict.output);
    });
  }

  test('a broken copy is refused, with the schema errors as JSON', () => {
    const original = readFileSync(join(WORKFLOWS, 'desktop.yml'), 'utf8');
    // A misspelt key (runs_on for runs-on) in every job: the kind of slip the schema is there to catch.
    const broken = original.replace(/^(\s+)runs-on:/gm, '$1runs_on:');
    assert.notEqual(broken, original, 'the copy was changed');
    const path = join(scratch, 'broken.yml');
    writeFileSync(path, broken);
    const verdict = validate(path);
    assert.equal(verdict.status, 1, verdict.output);
    const report = JSON.parse(verdict.output.slice(verdict.output.indexOf('{'))) as {
      errors: { path: string }[];
    };
    assert.ok(
      report.errors.some((error) => error.path.startsWith('/jobs/')),
      verdict.output,
    );
  });

  test('YAML that is not a workflow at all is refused', () => {
    const path = join(scratch, 'not-a-workflow.yml');
    writeFileSync(path, 'name: Desktop\nsteps:\n  - run: echo no jobs\n');
    assert.equal(validate(path).status, 1);
  });
});
