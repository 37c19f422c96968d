/**
 * GET /webhook/policy/: the developer portal's URL hint follows the server's MOHAR_WEBHOOK_ALLOW_PRIVATE (issue 28,
 * point 7), and what it says matches what saving a loopback URL then does.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LEGACY, startTestServer } from '../../support/server.js';

for (const allowPrivate of [false, true]) {
  describe(`the webhook URL policy with MOHAR_WEBHOOK_ALLOW_PRIVATE ${allowPrivate ? '=1' : 'unset'}`, () => {
    test('answers the setting to an admin login, and saving a loopback URL agrees with it', async () => {
      const server = await startTestServer('sqlite', allowPrivate ? { MOHAR_WEBHOOK_ALLOW_PRIVATE: '1' } : {});
      try {
        const owner = await server.newAccount();
        const policy = await server.request('GET', `${LEGACY}/webhook/policy/`, { token: owner.token });
        assert.equal(policy.statusCode, 200, policy.body);
        assert.deepEqual(policy.json(), { allow_private: allowPrivate });
        const saved = await server.request('POST', `${LEGACY}/webhook/save/`, {
          token: owner.token,
          json: { webhook_url: 'http://127.0.0.1:9/hook' },
        });
        assert.equal(saved.statusCode, allowPrivate ? 200 : 422, saved.body);
        const anonymous = await server.request('GET', `${LEGACY}/webhook/policy/`);
        assert.equal(anonymous.statusCode, 401);
      } finally {
        await server.close();
      }
    });
  });
}
