/** scripts/release-checksums.mjs: the SHA256SUMS of the release, in the format sha256sum --check reads. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';

const SCRIPT = new URL('../../scripts/release-checksums.mjs', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'mohar-sums-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const checksums = (...args: string[]) => spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8' });
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

test('one line per installer, sorted by name; other files and folders are left out', () => {
  const installers: Record<string, string> = {
    'Mohar-0.1.0-win-x64.exe': 'windows',
    'Mohar-0.1.0-linux-x86_64.AppImage': 'appimage',
    'Mohar-0.1.0-linux-amd64.deb': 'deb',
    'Mohar-0.1.0-mac-arm64.dmg': 'dmg',
  };
  for (const [name, body] of Object.entries(installers)) writeFileSync(join(dir, name), body);
  writeFileSync(join(dir, 'Mohar-0.1.0-win-x64.exe.blockmap'), 'not an installer');
  writeFileSync(join(dir, 'builder-debug.yml'), 'not an installer');
  mkdirSync(join(dir, 'linux-unpacked.deb'));

  const out = join(dir, 'SHA256SUMS');
  const run = checksums(dir, '--out', out);
  assert.equal(run.status, 0, run.stderr);
  const expected = Object.keys(installers)
    .sort()
    .map((name) => `${sha256(installers[name]!)}  ${name}`);
  assert.equal(readFileSync(out, 'utf8'), `${expected.join('\n')}\n`);

  // The independent judge, where coreutils is installed (the release job runs it too).
  const check = spawnSync('sha256sum', ['--check', '--strict', 'SHA256SUMS'], { cwd: dir, encoding: 'utf8' });
  if (check.error === undefined) assert.equal(check.status, 0, check.stdout + check.stderr);

  // Without --out the list goes to stdout.
  assert.equal(checksums(dir).stdout, `${expected.join('\n')}\n`);
});

test('a folder without installers, or a wrong command line, fails instead of writing an empty list', () => {
  const empty = mkdtempSync(join(dir, 'empty-'));
  const none = checksums(empty);
  assert.equal(none.status, 1);
  assert.match(none.stderr, /no installer/);
  assert.equal(checksums().status, 2);
  assert.equal(checksums(dir, '--out').status, 2);
});
