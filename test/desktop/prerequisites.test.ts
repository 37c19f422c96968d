/**
 * The smoke test's skip decision (prerequisites.ts), run everywhere: a missing Electron binary, a native module
 * built for the wrong ABI and a missing tool are each named, so a skip always says why.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { classifyNativeLoad, electronBinary, nativeProblem, onPath, probeBetterSqlite } from './prerequisites.js';

const scratch = mkdtempSync(join(tmpdir(), 'mohar-electron-pkg-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

describe('the Electron smoke test: prerequisites', () => {
  test('the Electron binary is found through node_modules/electron/path.txt, and its absence explained', () => {
    const pkg = join(scratch, 'node_modules', 'electron');
    mkdirSync(join(pkg, 'dist'), { recursive: true });
    assert.match((electronBinary(scratch) as { missing: string }).missing, /desktop:fetch-electron/);
    writeFileSync(join(pkg, 'path.txt'), 'electron');
    assert.match((electronBinary(scratch) as { missing: string }).missing, /no Electron binary at .*dist\/electron/);
    writeFileSync(join(pkg, 'dist', 'electron'), '');
    assert.deepEqual(electronBinary(scratch), { path: join(pkg, 'dist', 'electron') });
  });

  test("better-sqlite3's ABI is read from how Node refuses (or accepts) it", () => {
    assert.deepEqual(classifyNativeLoad(0, ''), { builtFor: 'node' });
    const refusal =
      "Error: The module '/x/better_sqlite3.node'\nwas compiled against a different Node.js version using\n" +
      'NODE_MODULE_VERSION 145. This version of Node.js requires\nNODE_MODULE_VERSION 137.';
    assert.deepEqual(classifyNativeLoad(1, refusal), { builtFor: 'other', moduleVersion: 145 });
    assert.deepEqual(classifyNativeLoad(1, 'Error: Could not locate the bindings file.\n  at x'), {
      unknown: 'Error: Could not locate the bindings file.   at x',
    });

    assert.equal(nativeProblem({ builtFor: 'other', moduleVersion: 145 }, 145), null);
    assert.match(
      nativeProblem({ builtFor: 'node' }, 145)!,
      /built for Node .* not for Electron \(ABI 145\).*install-app-deps/,
    );
    assert.match(nativeProblem({ builtFor: 'other', moduleVersion: 140 }, 145)!, /built for ABI 140/);
    assert.match(nativeProblem({ unknown: 'no bindings' }, 145)!, /does not load: no bindings/);
  });

  test('here, where the suite runs on Node, better-sqlite3 is the Node build (the smoke test needs the other)', () => {
    assert.deepEqual(probeBetterSqlite(), { builtFor: 'node' });
  });

  test('tools are looked up on PATH', () => {
    assert.equal(onPath('node', process.env.PATH), true);
    assert.equal(onPath('no-such-tool-mohar', process.env.PATH), false);
    assert.equal(onPath('node', ''), false);
  });
});
