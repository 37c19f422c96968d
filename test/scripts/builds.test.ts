/** scripts/builds.mjs: `npm start` builds only what is missing or older than its sources. */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ensureBuilt, staleness, type Build } from '../../scripts/builds.mjs';

const root = mkdtempSync(join(tmpdir(), 'mohar-builds-'));
after(() => rmSync(root, { recursive: true, force: true }));

// A build that appends a line to out/log.txt each time it runs: the log says how many times it was made.
const build: Build = {
  name: 'test build',
  output: 'out/log.txt',
  sources: ['src', 'config.json'],
  command: [
    '-e',
    "require('fs').mkdirSync('out',{recursive:true});require('fs').appendFileSync('out/log.txt','built\\n')",
  ],
  lock: '.lock-test',
};
const runs = (): number => readFileSync(join(root, build.output), 'utf8').split('\n').filter(Boolean).length;
const at = (seconds: number): Date => new Date(Date.UTC(2026, 10, 29, 10, 0, seconds));

test('a missing build is made, a current one is left alone, a newer source (even deep in a folder) remakes it', () => {
  mkdirSync(join(root, 'src', 'deep'), { recursive: true });
  writeFileSync(join(root, 'src', 'deep', 'a.ts'), 'export {};');
  writeFileSync(join(root, 'config.json'), '{}');
  for (const p of ['src/deep/a.ts', 'src/deep', 'src', 'config.json']) utimesSync(join(root, p), at(0), at(0));
  assert.equal(staleness(build, root), 'missing');

  const made: string[] = [];
  ensureBuilt(build, (_b, why) => made.push(why), root);
  assert.deepEqual(made, ['missing']);
  assert.equal(runs(), 1);
  utimesSync(join(root, build.output), at(10), at(10));

  ensureBuilt(build, (_b, why) => made.push(why), root);
  assert.equal(staleness(build, root), null);
  assert.equal(runs(), 1, 'a current build is not made again');

  utimesSync(join(root, 'src', 'deep', 'a.ts'), at(20), at(20));
  assert.equal(staleness(build, root), 'older than its sources');
  ensureBuilt(build, (_b, why) => made.push(why), root);
  assert.deepEqual(made, ['missing', 'older than its sources']);
  assert.equal(runs(), 2);
});

test('a failing build says which build failed and what it printed', () => {
  const failing: Build = {
    ...build,
    output: 'out/never.txt',
    command: ['-e', "console.error('no compiler');process.exit(2)"],
  };
  assert.throws(() => ensureBuilt(failing, () => {}, root), /building the test build failed:[\s\S]*no compiler/);
});
