/**
 * The envelope timeline words every audit action (issue 28, point 7): the shared list (common/audit-actions.ts)
 * has a sentence in English and Hindi for each action, and the server writes no action outside that list.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ENVELOPE_AUDIT_ACTIONS } from '../../common/audit-actions.js';
import { ENVELOPE_EVENT_TYPES } from '../../common/events.js';

// The renderer is type-checked by its own tsconfig (bundler resolution); loaded by URL here.
const { en, hi } = (await import(new URL('../../renderer/src/console/strings/index.ts', import.meta.url).href)) as {
  en: Record<string, string>;
  hi: Record<string, string>;
};

const SERVER = fileURLToPath(new URL('../../server', import.meta.url));
/** The account's own audit log (logins, users) is not an envelope's trail: its actions are worded elsewhere. */
const ACCOUNT_AUDIT = [/domain\/users\//, /domain\/auth\//, /routes\/legacy\/users\.ts$/];

function serverSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return serverSources(path);
    return entry.name.endsWith('.ts') && !ACCOUNT_AUDIT.some((p) => p.test(path)) ? [path] : [];
  });
}

/** Every "noun.verb" literal written as an audit entry's `action` anywhere in server/. */
function actionsWrittenByServer(): Set<string> {
  const written = new Set<string>(ENVELOPE_EVENT_TYPES);
  for (const file of serverSources(SERVER)) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (!/\baction:\s/.test(line)) continue;
      for (const m of line.matchAll(/'([a-z_]+\.[a-z_]+)'/g)) written.add(m[1] ?? '');
    }
  }
  return written;
}

test('every audit action has words in English and Hindi', () => {
  const DEVANAGARI = /[\u0900-\u097F]/;
  for (const action of ENVELOPE_AUDIT_ACTIONS) {
    const key = `envelopes.event.${action}`;
    assert.ok(en[key]?.trim(), `English words for ${action}`);
    assert.notEqual(en[key], action, `${action} is worded, not shown raw`);
    assert.match(hi[key] ?? '', DEVANAGARI, `Hindi words for ${action}`);
  }
});

test('the server writes no audit action the timeline cannot word', () => {
  const written = actionsWrittenByServer();
  assert.ok(written.has('signing_link.created') && written.has('recipient.links_revoked'), [...written].join());
  const unworded = [...written].filter((action) => !(ENVELOPE_AUDIT_ACTIONS as readonly string[]).includes(action));
  assert.deepEqual(unworded, []);
});
