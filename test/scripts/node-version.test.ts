/**
 * One Node line everywhere: the engines range, .nvmrc, the Node that .ci/run installs, the type definitions the
 * code is checked against, and the Node inside the Electron the desktop app is built with. A bump of one of them
 * without the others fails here.
 */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

const root = new URL('../../', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, root), 'utf8');
const packageJson = JSON.parse(read('package.json')) as {
  engines: { node: string };
  devDependencies: Record<string, string>;
};
const SUPPORTED_MAJOR = 24;

/** The Node major line bundled by each Electron major this project may build with (Electron's release notes). */
const NODE_OF_ELECTRON: Readonly<Record<number, number>> = { 40: 24, 41: 24, 42: 24 };

function majorOf(range: string): number {
  const match = /(\d+)/.exec(range);
  assert.ok(match, `no version in ${range}`);
  return Number(match[1]);
}

test('package.json engines, .nvmrc and .ci/run name the same Node major', () => {
  assert.equal(majorOf(packageJson.engines.node), SUPPORTED_MAJOR);
  assert.equal(read('.nvmrc').trim(), String(SUPPORTED_MAJOR));
  assert.match(read('.ci/run'), new RegExp(`^NODE_MAJOR=${SUPPORTED_MAJOR}$`, 'm'));
});

test('the code is type-checked against the same Node major', () => {
  assert.equal(majorOf(packageJson.devDependencies['@types/node'] ?? ''), SUPPORTED_MAJOR);
});

test('the Electron the desktop app is built with embeds the same Node major', () => {
  const electronMajor = majorOf(packageJson.devDependencies['electron'] ?? '');
  assert.equal(NODE_OF_ELECTRON[electronMajor], SUPPORTED_MAJOR, `Electron ${electronMajor}: Node line unknown`);
});

test('the benchmarks insist on that Node major', () => {
  assert.match(read('bench/run.ts'), new RegExp(`const SUPPORTED_NODE_MAJOR = ${SUPPORTED_MAJOR};`));
});

test('the suite itself runs on that Node major', () => {
  assert.equal(Number(process.versions.node.split('.')[0]), SUPPORTED_MAJOR);
});
