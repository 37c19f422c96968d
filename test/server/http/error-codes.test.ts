import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ERROR_CODES } from '../../../server/http/error-codes.js';

const root = new URL('../../../', import.meta.url).pathname;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') || name.endsWith('.tsx') ? [path] : [];
  });
}

/** Every code a MoharError is constructed with, plus codes passed through workers. */
function thrownCodes(): Map<string, string> {
  const codes = new Map<string, string>();
  const patterns = [
    /MoharError\(\s*'([a-z0-9_]+)'/g,
    /\bcode: '([a-z0-9_]+)'/g,
    /(?:fail|raise|error)\(\s*'([a-z0-9_]+)'/g,
  ];
  for (const dir of ['common', 'pdf', 'native', 'server', 'cli', 'main']) {
    let files: string[] = [];
    try {
      files = sources(join(root, dir));
    } catch {
      continue;
    }
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const pattern of patterns) for (const match of text.matchAll(pattern)) codes.set(match[1]!, file);
    }
  }
  return codes;
}

describe('error codes', () => {
  const docs = readFileSync(join(root, 'docs/errors.md'), 'utf8');
  const documented = new Set(
    [...docs.matchAll(/^\| `([a-z0-9_]+)`(?: \/ `([a-z0-9_]+)`)? \|/gm)].flatMap(
      (m) => [m[1]!, m[2]].filter(Boolean) as string[],
    ),
  );

  test('every code in the HTTP table is documented in docs/errors.md', () => {
    for (const code of Object.keys(ERROR_CODES)) assert.ok(documented.has(code), `${code} missing from docs/errors.md`);
  });

  test('every thrown code is in the HTTP table or documented as a field-layout reason', () => {
    const codes = thrownCodes();
    assert.ok(codes.size > 20, 'the scan finds the codes');
    for (const [code, file] of codes) {
      assert.ok(
        Object.hasOwn(ERROR_CODES, code) || documented.has(code),
        `${code} (thrown in ${file}) is not in server/http/error-codes.ts nor docs/errors.md`,
      );
    }
  });

  test('statuses are HTTP error statuses', () => {
    for (const [code, info] of Object.entries(ERROR_CODES)) assert.ok(info.status >= 400 && info.status < 600, code);
  });
});
