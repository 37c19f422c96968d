/**
 * Keeps issue 16's isolation from eroding: a route of the envelope API that acts for the caller's account hands
 * its domain operation forCaller(ctx, request), the Context carrying the caller's mode, never the bare ctx (with
 * it a test key would see live data again). The sandbox routes are exempt: only test keys reach them.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

const ROOT = join(import.meta.dirname, '../../../server/routes');
const FILES = [...readdirSync(join(ROOT, 'v1')).map((f) => join('v1', f)), join('legacy', 'documents.ts')].filter(
  (f) => f.endsWith('.ts') && f !== join('v1', 'sandbox.ts'),
);

test('envelope-API routes pass the caller-scoped Context to domain operations', () => {
  const offenders: string[] = [];
  for (const file of FILES) {
    readFileSync(join(ROOT, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (/\(ctx, (accountOf\(request\)|accountId\b)/.test(line)) offenders.push(`${file}:${i + 1}: ${line.trim()}`);
      });
  }
  assert.deepEqual(
    offenders,
    [],
    'use forCaller(ctx, request) (server/http/auth-hooks.ts) where the operation acts for the caller',
  );
});
