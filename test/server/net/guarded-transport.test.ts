import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { isPublicAddress } from '../../../server/net/address-policy.js';
import { guardedTransport } from '../../../server/net/guarded-transport.js';

describe('outbound address policy', () => {
  test('public unicast only', () => {
    for (const address of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      'not-an-ip',
    ]) {
      assert.equal(isPublicAddress(address), false, address);
    }
    for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
      assert.equal(isPublicAddress(address), true, address);
    }
  });
});

describe('guarded transport', () => {
  let server: Server;
  let port = 0;
  before(async () => {
    server = createServer((request, response) => {
      if (request.url === '/redirect') {
        response.writeHead(302, { location: 'http://127.0.0.1/elsewhere' }).end();
        return;
      }
      response.end(Buffer.from('ok'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('refuses loopback, private and metadata targets, by literal and by name', async () => {
    const transport = guardedTransport();
    for (const url of [
      `http://127.0.0.1:${port}/`,
      `http://localhost:${port}/`,
      'http://[::1]/',
      'http://10.0.0.1/',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::ffff:127.0.0.1]/',
      'ftp://example.com/x',
    ]) {
      await assert.rejects(transport({ url }), /not a public address|only http and https/, url);
    }
  });

  test('with private targets allowed it fetches, and does not follow redirects', async () => {
    const transport = guardedTransport({ allowPrivate: true });
    assert.equal(Buffer.from(await transport({ url: `http://localhost:${port}/` })).toString(), 'ok');
    await assert.rejects(transport({ url: `http://127.0.0.1:${port}/redirect` }), /HTTP 302/);
  });
});
