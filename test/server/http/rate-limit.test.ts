/**
 * The per-key burst limit through the API on SQLite and PostgreSQL: headers on every key-authenticated
 * response of both scopes, 429 rate_limited with Retry-After, a new window after a minute, keys counted apart;
 * on PostgreSQL two app instances on one database share the count.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../../server/app.js';
import { DATABASES } from '../../support/databases.js';
import { API, LEGACY, useTestServer } from '../../support/server.js';

const LIMIT = 5;

function headersOf(response: LightMyRequestResponse): [number, number, number] {
  return [
    Number(response.headers['x-ratelimit-limit']),
    Number(response.headers['x-ratelimit-remaining']),
    Number(response.headers['x-ratelimit-reset']),
  ];
}

for (const kind of DATABASES) {
  describe(`rate limit on ${kind}`, () => {
    const t = useTestServer(kind, { MOHAR_RATE_LIMIT_PER_MINUTE: String(LIMIT) });

    /** Moves the test clock to the start of the next minute, so a test owns a whole window. */
    function nextWindow(): void {
      const now = t.server.clock.now().getTime();
      t.server.clock.advance((60_000 - (now % 60_000)) / 1000 + 0.01);
    }

    test('five calls per minute per key over both APIs, then 429 with Retry-After; a new minute starts afresh', async () => {
      const account = await t.server.newAccount();
      nextWindow();
      const windowEnd = Math.ceil(t.server.clock.now().getTime() / 60_000) * 60;
      const calls = [
        () => t.server.request('GET', `${LEGACY}/usage/summary/`, { key: account.key }),
        () => t.server.request('GET', `${API}/envelopes/00000000-0000-4000-8000-000000000000`, { key: account.key }),
        () => t.server.request('GET', `${LEGACY}/document/app/sign/status/999999/`, { key: account.key }),
        () => t.server.request('GET', `${LEGACY}/apikey/get/`, { key: account.key }),
        () =>
          t.server.request('POST', `${LEGACY}/document/recipients/create/`, {
            key: account.key,
            json: { nonsense: true },
          }),
      ];
      const statuses: number[] = [];
      for (const [i, call] of calls.entries()) {
        const response = await call();
        statuses.push(response.statusCode);
        assert.deepEqual(headersOf(response), [LIMIT, LIMIT - 1 - i, windowEnd], `call ${i}: ${response.body}`);
      }
      assert.deepEqual(statuses, [200, 404, 404, 200, 422], 'errors after authentication carry the headers too');

      const refused = await t.server.request('GET', `${LEGACY}/usage/summary/`, { key: account.key });
      assert.equal(refused.statusCode, 429);
      assert.equal(refused.json().code, 'rate_limited');
      assert.deepEqual(headersOf(refused), [LIMIT, 0, windowEnd]);
      const retryAfter = Number(refused.headers['retry-after']);
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
      // A create over the limit is refused before its body is read or any quota is used.
      const create = await t.server.request('POST', `${LEGACY}/document/recipients/create/`, {
        key: account.key,
        json: { not: 'even valid' },
      });
      assert.equal(create.json().code, 'rate_limited');

      // Another key is counted apart; a login token is not counted at all.
      const other = await t.server.newAccount();
      assert.deepEqual(
        headersOf(await t.server.request('GET', `${LEGACY}/usage/summary/`, { key: other.key })).slice(0, 2),
        [LIMIT, LIMIT - 1],
      );
      const byLogin = await t.server.request('GET', `${LEGACY}/usage/summary/`, { token: account.token });
      assert.equal(byLogin.statusCode, 200);
      assert.equal(byLogin.headers['x-ratelimit-limit'], undefined);

      t.server.clock.advance(retryAfter);
      const later = await t.server.request('GET', `${LEGACY}/usage/summary/`, { key: account.key });
      assert.equal(later.statusCode, 200);
      assert.deepEqual(headersOf(later).slice(0, 2), [LIMIT, LIMIT - 1]);
    });

    test('invalid keys are refused before counting: no headers', async () => {
      const response = await t.server.request('GET', `${LEGACY}/usage/summary/`, { key: 'qsk_live_unknown' });
      assert.equal(response.statusCode, 401);
      assert.equal(response.headers['x-ratelimit-limit'], undefined);
    });

    if (kind === 'postgres') {
      test('two server instances on one PostgreSQL database share the count', async () => {
        const account = await t.server.newAccount();
        nextWindow();
        const second = await buildApp(t.server.ctx, {
          logStream: new Writable({ write: (_chunk, _encoding, done) => done() }),
        });
        await second.ready();
        try {
          const viaSecond = (n: number) =>
            second
              .inject({ method: 'GET', url: `${LEGACY}/usage/summary/`, headers: { 'x-api-key': account.key } })
              .then((r) => {
                assert.equal(r.statusCode, 200, `second instance call ${n}`);
                return r;
              });
          const viaFirst = () => t.server.request('GET', `${LEGACY}/usage/summary/`, { key: account.key });
          assert.equal((await viaFirst()).statusCode, 200);
          assert.equal((await viaFirst()).statusCode, 200);
          await viaSecond(1);
          await viaSecond(2);
          const last = await viaFirst();
          assert.equal(last.statusCode, 200);
          assert.equal(Number(last.headers['x-ratelimit-remaining']), 0);
          assert.equal((await viaFirst()).statusCode, 429);
          assert.equal(
            (
              await second.inject({
                method: 'GET',
                url: `${LEGACY}/usage/summary/`,
                headers: { 'x-api-key': account.key },
              })
            ).statusCode,
            429,
          );
        } finally {
          await second.close();
        }
      });
    }
  });
}
