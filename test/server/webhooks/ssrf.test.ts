/**
 * SSRF: with MOHAR_WEBHOOK_ALLOW_PRIVATE off, webhook URLs must be https to public addresses, checked at
 * registration (the resolved addresses) and again at delivery (the lookup of the socket, and the
 * connected address), and redirects are never followed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { isMoharError } from '../../../common/errors.js';
import { DATABASES } from '../../support/databases.js';
import { LEGACY, startTestServer, type TestAccount, type TestServer } from '../../support/server.js';
import type { Resolver } from '../../../server/net/guarded-transport.js';
import { registerWebhook } from '../../../server/domain/webhooks/register-endpoint.js';
import { webhookTransport } from '../../../server/webhooks/transport.js';
import { WebhookWorker } from '../../../server/webhooks/worker.js';
import { startReceiver, type TestReceiver } from './receiver.js';

const resolveTo =
  (...addresses: string[]): Resolver =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
const body = Buffer.from('{"id":"x"}');

for (const kind of DATABASES) {
  describe(`webhook URL rules at registration on ${kind} (private targets not allowed)`, () => {
    let server: TestServer;
    let account: TestAccount;
    before(async () => {
      server = await startTestServer(kind);
      account = await server.newAccount();
    });
    after(() => server?.close());

    test('loopback, private, link-local, metadata, CGNAT, multicast and IPv4-mapped targets are refused with the reason', async () => {
      const cases: [string, RegExp][] = [
        ['https://127.0.0.1/hooks', /127\.0\.0\.1 is not a public address \(loopback\)/],
        ['https://[::1]/hooks', /::1 is not a public address \(loopback\)/],
        ['https://10.0.0.1/hooks', /10\.0\.0\.1 is not a public address \(private\)/],
        ['https://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is not a public address \(cloud metadata\)/],
        ['https://[::ffff:127.0.0.1]/hooks', /loopback/],
        ['https://[::ffff:a9fe:a9fe]/hooks', /cloud metadata/],
        ['https://100.64.0.7/hooks', /carrier-grade NAT/],
        ['https://[fe80::1]/hooks', /link-local/],
        ['https://[fd12::1]/hooks', /private/],
        ['https://239.1.2.3/hooks', /multicast/],
        ['https://localhost/hooks', /localhost resolves to .*loopback/],
        ['http://example.com/hooks', /must start with https:\/\//],
        ['https://user:secret@example.com/hooks', /user name or password/],
        ['ftp://example.com/hooks', /must start with https:\/\//],
      ];
      for (const [url, reason] of cases) {
        const response = await server.request('POST', `${LEGACY}/webhook/save/`, {
          token: account.token,
          json: { webhook_url: url },
        });
        assert.equal(response.statusCode, 422, url);
        assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
        assert.equal(response.json().code, 'invalid_webhook_url', url);
        assert.match(response.json().detail, reason, url);
        assert.equal(response.json().errors[0].path, '/webhook_url');
      }
      // Not a URL at all: the body schema says webhook_url is a URI, so it is refused before the policy runs.
      const notUrl = await server.request('POST', `${LEGACY}/webhook/save/`, {
        token: account.token,
        json: { webhook_url: 'not a url' },
      });
      assert.equal(notUrl.statusCode, 422);
      assert.equal(notUrl.json().code, 'validation_failed');
      assert.equal(notUrl.json().errors[0].path, 'body/webhook_url');
      assert.equal(
        (await server.request('GET', `${LEGACY}/webhook/`, { token: account.token })).statusCode,
        404,
        'nothing was stored',
      );
    });

    test('a name that resolves to a private address is refused (any one of its addresses); a public one is accepted', async () => {
      for (const resolve of [
        resolveTo('10.9.8.7'),
        resolveTo('93.184.216.34', '192.168.1.20'),
        resolveTo('2606:4700::6810:84e5', '::1'),
        resolveTo('::ffff:10.0.0.5'),
      ]) {
        await assert.rejects(
          registerWebhook(server.ctx, account.accountId, 'https://hooks.example.test/in', { resolve }),
          (error: unknown) =>
            isMoharError(error, 'invalid_webhook_url') &&
            /hooks\.example\.test resolves to .*not a public address/.test(error.message),
        );
      }
      await assert.rejects(
        registerWebhook(server.ctx, account.accountId, 'https://nowhere.example.test/in', {
          resolve: async () => {
            throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
          },
        }),
        /cannot be resolved \(ENOTFOUND\)/,
      );
      const saved = await registerWebhook(server.ctx, account.accountId, 'https://hooks.example.test/in#frag', {
        resolve: resolveTo('93.184.216.34'),
      });
      assert.equal(saved.webhook_url, 'https://hooks.example.test/in', 'stored without the fragment');
      assert.equal(saved.status, 'active');
    });
  });
}

describe('webhook transport with private targets not allowed', () => {
  let receiver: TestReceiver;
  before(async () => {
    receiver = await startReceiver();
  });
  after(() => receiver?.close());

  test('a name resolving to a private address at delivery time (DNS changed since registration) is refused before connecting', async () => {
    const transport = webhookTransport({ allowPrivate: false, resolve: resolveTo('127.0.0.1') });
    try {
      const result = await transport.post({
        url: `https://rebound.example.test:${receiver.port}/hooks`,
        body,
        headers: {},
      });
      assert.equal(result.statusCode, null);
      assert.match(
        result.error!,
        /^refused: rebound\.example\.test resolves to 127\.0\.0\.1, which is not a public address \(loopback\)/,
      );
      const mixed = webhookTransport({ allowPrivate: false, resolve: resolveTo('93.184.216.34', '10.0.0.8') });
      assert.match(
        (await mixed.post({ url: `https://mixed.example.test:${receiver.port}/hooks`, body, headers: {} })).error!,
        /10\.0\.0\.8/,
      );
      mixed.close();
    } finally {
      transport.close();
    }
    assert.equal(receiver.connections, 0, 'not even a TCP connection');
  });

  test('IP literals are refused before connecting, plain http too', async () => {
    const transport = webhookTransport({ allowPrivate: false });
    try {
      for (const url of [
        `https://127.0.0.1:${receiver.port}/`,
        `https://[::1]:${receiver.port}/`,
        'https://10.0.0.1/',
        'https://169.254.169.254/latest/meta-data/',
        `https://[::ffff:127.0.0.1]:${receiver.port}/`,
      ]) {
        assert.match(
          (await transport.post({ url, body, headers: {} })).error!,
          /^refused: .*not a public address/,
          url,
        );
      }
      assert.match(
        (await transport.post({ url: `http://127.0.0.1:${receiver.port}/`, body, headers: {} })).error!,
        /^refused: http:\/\/ targets need MOHAR_WEBHOOK_ALLOW_PRIVATE=1/,
      );
    } finally {
      transport.close();
    }
    assert.equal(receiver.connections, 0);
  });

  test('the connected address is checked again (a lookup that lies is caught at connect)', async () => {
    // The policy passes the name's address during lookup but not the socket's peer: only the second check can catch it.
    let lookups = 0;
    const transport = webhookTransport({
      allowPrivate: true,
      resolve: resolveTo('127.0.0.1'),
      policy: () => lookups++ === 0,
    });
    try {
      const result = await transport.post({
        url: `http://lying.example.test:${receiver.port}/hooks`,
        body,
        headers: {},
      });
      assert.equal(result.statusCode, null);
      assert.match(result.error!, /refused: 127\.0\.0\.1 is not a public address/);
    } finally {
      transport.close();
    }
    assert.equal(receiver.received.length, 0, 'the request was never sent');
  });

  test('a redirect to a private address is not followed (nor any redirect)', async () => {
    const inside = await startReceiver('127.0.0.2');
    const before = receiver.received.length;
    // Stand-in for a public receiver: only 127.0.0.1 counts as public here; 127.0.0.2 and 10.0.0.1 do not.
    const transport = webhookTransport({ allowPrivate: true, policy: (address) => address === '127.0.0.1' });
    try {
      for (const location of [
        `http://127.0.0.2:${inside.port}/steal`,
        'http://10.0.0.1/steal',
        `http://127.0.0.1:${receiver.port}/elsewhere`,
      ]) {
        receiver.respond = () => ({ status: 307, headers: { location } });
        const result = await transport.post({ url: `http://127.0.0.1:${receiver.port}/hooks`, body, headers: {} });
        assert.equal(result.statusCode, 307);
        assert.equal(result.location, location);
      }
      // The target itself is refused by the same policy.
      assert.match(
        (await transport.post({ url: `http://127.0.0.2:${inside.port}/steal`, body, headers: {} })).error!,
        /not a public address/,
      );
    } finally {
      receiver.respond = () => 200;
      transport.close();
      await inside.close();
    }
    assert.equal(receiver.received.length - before, 3);
    assert.deepEqual(
      receiver.received.slice(before).map((r) => r.path),
      ['/hooks', '/hooks', '/hooks'],
      'only the registered URL was called',
    );
    assert.equal(inside.connections, 0);
  });
});

for (const kind of DATABASES) {
  describe(`a redirecting receiver through the worker on ${kind}`, () => {
    let server: TestServer;
    let receiver: TestReceiver;
    before(async () => {
      server = await startTestServer(kind, { MOHAR_WEBHOOK_ALLOW_PRIVATE: '1' });
      receiver = await startReceiver();
    });
    after(async () => {
      await receiver?.close();
      await server?.close();
    });

    test('a 302 is a failed attempt, logged as such, and the Location is never called', async () => {
      const owner = await server.newAccount();
      assert.equal(
        (
          await server.request('POST', `${LEGACY}/webhook/save/`, {
            token: owner.token,
            json: { webhook_url: receiver.url },
          })
        ).statusCode,
        200,
      );
      receiver.respond = (_i, request) =>
        request.path === '/hooks'
          ? { status: 302, headers: { location: `http://127.0.0.1:${receiver.port}/private` } }
          : 200;
      const { delivery_id: deliveryId } = (
        await server.request('POST', `${LEGACY}/webhook/test/`, { token: owner.token })
      ).json();
      await new WebhookWorker(server.ctx, { listen: false }).deliverDue();
      const detail = (
        await server.request('GET', `${LEGACY}/webhook/deliveries/${deliveryId}/`, { token: owner.token })
      ).json();
      assert.equal(detail.status, 'pending', 'retried later');
      assert.equal(detail.attempt_log[0].status_code, 302);
      assert.match(detail.attempt_log[0].error, /redirects are not followed/);
      assert.deepEqual(
        receiver.received.map((r) => r.path),
        ['/hooks'],
      );
    });
  });
}
