#!/usr/bin/env node
// Runs the whole test suite with Node's test runner (TypeScript through tsx).
// Usage: npm test [-- path-filter ...]   e.g. npm test -- test/pdf
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const filters = process.argv.slice(2);

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...collect(path));
    else if (name.endsWith('.test.ts')) out.push(relative(root, path));
  }
  return out;
}

const files = collect(join(root, 'test'))
  .filter((f) => filters.length === 0 || filters.some((p) => f.includes(p)))
  .sort();
if (files.length === 0) {
  console.error('no test files matched', filters);
  process.exit(1);
}
const args = ['--import', 'tsx', '--test', '--test-concurrency=2', ...files];
const result = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
process.exit(result.status ?? 1);
