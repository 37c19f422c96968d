/** The receiver helper published as `mohar/webhooks`: every receiver rule of the interface, with clear reasons. */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { signatureHeader, verifyWebhook, webhookSignature } from '../../../server/webhooks/verify.js';

const SECRET = 'whsec_test_secret_one';
const OTHER = 'whsec_test_secret_two';
const NOW = 1_767_225_600;

function delivery(options: { secrets?: string[]; timestamp?: number; id?: string; body?: string } = {}) {
  const id = options.id ?? '8d1f4a39-2f6b-4b7e-9f43-0a9d3c3b2e11';
  const body =
    options.body ??
    JSON.stringify({
      id,
      type: 'envelope.completed',
      created_at: '2026-01-01T00:00:00.000Z',
      account_id: 'a',
      sequence: 3,
      data: { envelope: { id: 'e' } },
    });
  const timestamp = options.timestamp ?? NOW;
  const headers = {
    'x-service-timestamp': String(timestamp),
    'x-service-signature': signatureHeader(options.secrets ?? [SECRET], timestamp, body),
    'x-service-event-id': id,
    'content-type': 'application/json',
  };
  return { body, headers, id };
}

describe('verifyWebhook', () => {
  test('the signature is hex HMAC-SHA256 over timestamp + "." + raw body, as plain node:crypto computes it', () => {
    const expected = createHmac('sha256', SECRET).update(`${NOW}.{"a":1}`).digest('hex');
    assert.equal(webhookSignature(SECRET, NOW, '{"a":1}'), expected);
    assert.equal(
      signatureHeader([SECRET, OTHER], NOW, '{"a":1}'),
      `sha256=${expected},sha256=${createHmac('sha256', OTHER).update(`${NOW}.{"a":1}`).digest('hex')}`,
    );
  });

  test('accepts a good delivery and returns the parsed event', async () => {
    const { body, headers, id } = delivery();
    const result = await verifyWebhook({ rawBody: Buffer.from(body), headers, secrets: SECRET, now: NOW * 1000 });
    assert.equal(result.ok, true);
    assert.ok(
      result.ok && result.eventId === id && result.event.type === 'envelope.completed' && result.timestamp === NOW,
    );
  });

  test('any candidate may match (rotation), with the receiver holding either secret or both', async () => {
    const { body, headers } = delivery({ secrets: [OTHER, SECRET] });
    for (const secrets of [[SECRET], [OTHER], [SECRET, OTHER]]) {
      assert.equal(
        (await verifyWebhook({ rawBody: body, headers, secrets, now: NOW * 1000 })).ok,
        true,
        secrets.join(),
      );
    }
  });

  test('refuses a wrong secret and a changed body', async () => {
    const { body, headers } = delivery();
    const wrong = await verifyWebhook({ rawBody: body, headers, secrets: OTHER, now: NOW * 1000 });
    assert.equal(wrong.ok, false);
    assert.equal(!wrong.ok && wrong.reason, 'bad_signature');
    const changed = await verifyWebhook({
      rawBody: body.replace('"sequence":3', '"sequence":4'),
      headers,
      secrets: SECRET,
      now: NOW * 1000,
    });
    assert.equal(!changed.ok && changed.reason, 'bad_signature');
    // Re-serialised JSON (key order, spacing) is another byte string: only the raw body verifies.
    const reserialised = await verifyWebhook({
      rawBody: JSON.stringify(JSON.parse(body), null, 1),
      headers,
      secrets: SECRET,
      now: NOW * 1000,
    });
    assert.equal(!reserialised.ok && reserialised.reason, 'bad_signature');
  });

  test('refuses stale and far-future timestamps, within a configurable tolerance', async () => {
    const { body, headers } = delivery();
    const late = await verifyWebhook({ rawBody: body, headers, secrets: SECRET, now: (NOW + 301) * 1000 });
    assert.equal(!late.ok && late.reason, 'stale_timestamp');
    assert.match(!late.ok ? late.message : '', /301 s/);
    assert.equal((await verifyWebhook({ rawBody: body, headers, secrets: SECRET, now: (NOW + 299) * 1000 })).ok, true);
    assert.equal((await verifyWebhook({ rawBody: body, headers, secrets: SECRET, now: (NOW - 301) * 1000 })).ok, false);
    assert.equal(
      (
        await verifyWebhook({
          rawBody: body,
          headers,
          secrets: SECRET,
          now: (NOW + 1000) * 1000,
          toleranceSeconds: 1200,
        })
      ).ok,
      true,
    );
  });

  test('a timestamp cannot be swapped: it is part of the signed string', async () => {
    const { body, headers } = delivery();
    const moved = { ...headers, 'x-service-timestamp': String(NOW + 10) };
    assert.equal((await verifyWebhook({ rawBody: body, headers: moved, secrets: SECRET, now: NOW * 1000 })).ok, false);
  });

  test('refuses a duplicate event id through the seen store (a Set works)', async () => {
    const seen = new Set<string>();
    const { body, headers, id } = delivery();
    assert.equal((await verifyWebhook({ rawBody: body, headers, secrets: SECRET, seen, now: NOW * 1000 })).ok, true);
    assert.ok(seen.has(id));
    const again = await verifyWebhook({ rawBody: body, headers, secrets: SECRET, seen, now: NOW * 1000 });
    assert.equal(!again.ok && again.reason, 'duplicate_event');
    assert.equal(!again.ok && again.eventId, id);
    // A failed verification does not mark the id as seen.
    const other = delivery({ id: '0b9f3d5e-0000-4000-8000-000000000001' });
    await verifyWebhook({ rawBody: other.body, headers: other.headers, secrets: OTHER, seen, now: NOW * 1000 });
    assert.equal(seen.has(other.id), false);
  });

  test('an async seen store (e.g. a database) is awaited', async () => {
    const ids = new Set<string>();
    const seen = { has: async (id: string) => ids.has(id), add: async (id: string) => void ids.add(id) };
    const { body, headers } = delivery();
    assert.equal((await verifyWebhook({ rawBody: body, headers, secrets: SECRET, seen, now: NOW * 1000 })).ok, true);
    assert.equal((await verifyWebhook({ rawBody: body, headers, secrets: SECRET, seen, now: NOW * 1000 })).ok, false);
  });

  test('missing or malformed headers, and a body whose id differs from the header, are named', async () => {
    const { body, headers } = delivery();
    for (const name of ['x-service-timestamp', 'x-service-signature', 'x-service-event-id']) {
      const without = Object.fromEntries(Object.entries(headers).filter(([k]) => k !== name));
      const result = await verifyWebhook({ rawBody: body, headers: without, secrets: SECRET, now: NOW * 1000 });
      assert.equal(!result.ok && result.reason, 'missing_header', name);
      assert.match(!result.ok ? result.message : '', new RegExp(name));
    }
    const malformed = await verifyWebhook({
      rawBody: body,
      headers: { ...headers, 'x-service-signature': 'md5=abc' },
      secrets: SECRET,
      now: NOW * 1000,
    });
    assert.equal(!malformed.ok && malformed.reason, 'malformed_header');
    const swapped = delivery({ id: 'aaaaaaaa-0000-4000-8000-000000000000', body });
    const mismatch = await verifyWebhook({ rawBody: body, headers: swapped.headers, secrets: SECRET, now: NOW * 1000 });
    assert.equal(!mismatch.ok && mismatch.reason, 'invalid_body');
    assert.equal(!(await verifyWebhook({ rawBody: body, headers, secrets: [], now: NOW * 1000 })).ok, true);
  });

  test('takes a Fetch Headers object and header names in any case', async () => {
    const { body, headers } = delivery();
    assert.equal(
      (await verifyWebhook({ rawBody: body, headers: new Headers(headers), secrets: SECRET, now: NOW * 1000 })).ok,
      true,
    );
    const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    assert.equal((await verifyWebhook({ rawBody: body, headers: upper, secrets: SECRET, now: NOW * 1000 })).ok, true);
  });

  test('the published module imports nothing but node:crypto', () => {
    const source = readFileSync(new URL('../../../server/webhooks/verify.ts', import.meta.url), 'utf8');
    const imports = [...source.matchAll(/^import .* from '([^']+)';$/gm)].map((m) => m[1]);
    assert.deepEqual(imports, ['node:crypto']);
  });
});
