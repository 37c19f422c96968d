/**
 * Signing-link routes: small bodies refused from Content-Length before reading, PDF bodies only where a PDF
 * is expected, and a rate limit per link and per client address (429 rate_limited with Retry-After).
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, test } from 'node:test';
import { DATABASES } from '../../support/databases.js';
import { makePdf } from '../../support/pdf-fixtures.js';
import { API, useTestServer } from '../../support/server.js';

const fakeToken = (n: number) => `tok${String(n).padStart(30, '0')}`;
const DOC = '00000000-0000-4000-8000-000000000000';

/**
 * Sends only the head (with the given Content-Length) and a few body bytes; resolves with the answer and how long it
 * took.
 */
function headOnly(port: number, head: string): Promise<{ text: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1', () => socket.write(`${head}\r\n%PDF-1.7\n`));
    let text = '';
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      if (/\r\n\r\n[\s\S]*\}/.test(text)) {
        socket.destroy();
        resolve({ text, ms: Date.now() - started });
      }
    });
    socket.on('error', reject);
  });
}

for (const kind of DATABASES) {
  describe(`signing-link body limits on ${kind}`, () => {
    const t = useTestServer(kind, { MOHAR_MAX_PDF_BYTES: '5MiB' });

    test('a declared 10 GB PDF upload is refused with 413 file_too_large before the body is read', async () => {
      await t.server.app.listen({ host: '127.0.0.1', port: 0 });
      const address = t.server.app.server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      const head = `PUT ${API}/signing/${fakeToken(1)}/documents/${DOC}/signed HTTP/1.1\r\nHost: x\r\nContent-Type: application/pdf\r\nContent-Length: 10000000000\r\n`;
      const { text, ms } = await headOnly(port, head);
      assert.match(text, /^HTTP\/1\.1 413 /);
      assert.match(text, /"code":"file_too_large"/);
      assert.match(text, /accepts at most 5242880 bytes/);
      assert.ok(ms < 2_000, `answered in ${ms} ms`);
    });

    test('JSON on a signing-link route is limited to 64 KiB (413 body_too_large naming the limit)', async () => {
      const big = {
        fields: {
          a: 'x'.repeat(9_000),
          b: 'x'.repeat(9_000),
          c: 'x'.repeat(9_000),
          d: 'x'.repeat(9_000),
          e: 'x'.repeat(9_000),
          f: 'x'.repeat(9_000),
          g: 'x'.repeat(9_000),
          h: 'x'.repeat(9_000),
        },
      };
      const response = await t.server.request('POST', `${API}/signing/${fakeToken(2)}/documents/${DOC}/prepared`, {
        json: big,
      });
      assert.equal(response.statusCode, 413);
      assert.equal(response.json().code, 'body_too_large');
      assert.match(response.json().detail, /at most 65536 bytes/);
      const small = await t.server.request('POST', `${API}/signing/${fakeToken(2)}/documents/${DOC}/prepared`, {
        json: { fields: { a: 'x' } },
      });
      assert.notEqual(small.statusCode, 413);
    });

    test('the signing act itself may carry a signature and an initials image (up to 5 MiB), not more', async () => {
      const image = { action: 'sign', consent: true, signature: { kind: 'drawn', image_png: 'A'.repeat(1_000_000) } };
      const fits = await t.server.request('POST', `${API}/signing/${fakeToken(3)}`, { json: image });
      assert.notEqual(fits.statusCode, 413, fits.body);
      const tooBig = await t.server.app.inject({
        method: 'POST',
        url: `${API}/signing/${fakeToken(3)}`,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ ...image, pad: 'x'.repeat(5_300_000) }),
      });
      assert.equal(tooBig.statusCode, 413);
    });

    test('application/pdf bodies are parsed only by the signed-PDF upload; elsewhere 415 without reading', async () => {
      const pdf = makePdf();
      const elsewhere = await t.server.app.inject({
        method: 'POST',
        url: `${API}/envelopes`,
        headers: { 'content-type': 'application/pdf', 'x-api-key': t.account.key },
        payload: pdf,
      });
      assert.equal(elsewhere.statusCode, 415);
      assert.equal(elsewhere.json().code, 'unsupported_media_type');
      const act = await t.server.app.inject({
        method: 'POST',
        url: `${API}/signing/${fakeToken(4)}`,
        headers: { 'content-type': 'application/pdf' },
        payload: pdf,
      });
      assert.equal(act.statusCode, 415);
      const upload = await t.server.app.inject({
        method: 'PUT',
        url: `${API}/signing/${fakeToken(4)}/documents/${DOC}/signed`,
        headers: { 'content-type': 'application/pdf' },
        payload: pdf,
      });
      assert.notEqual(upload.statusCode, 415, 'the upload route reads the PDF (and then finds no such link)');
      assert.notEqual(upload.statusCode, 413);
    });

    test('OpenAPI lists 413 and 429 for the signing-link routes', async () => {
      const doc = (await t.server.request('GET', `${API}/openapi.json`)).json();
      for (const [path, method] of [
        ['/signing/{token}', 'post'],
        ['/signing/{token}/documents/{document_id}/signed', 'put'],
        ['/signing/{token}/documents/{document_id}/prepared', 'get'],
      ] as const) {
        const responses = doc.paths[path]?.[method]?.responses ?? {};
        assert.ok(responses['413'] && responses['429'], `${method} ${path}: ${Object.keys(responses).join(', ')}`);
      }
    });
  });

  describe(`signing-link rate limits on ${kind}`, () => {
    const t = useTestServer(kind, { MOHAR_TOKEN_RATE_LIMIT_PER_MINUTE: '3', MOHAR_ADDRESS_RATE_LIMIT_PER_MINUTE: '5' });

    test('per link: the 4th request in a minute is 429 rate_limited with Retry-After; per address: the 6th', async () => {
      for (let i = 0; i < 3; i++) {
        const ok = await t.server.request('GET', `${API}/signing/${fakeToken(10)}`);
        assert.notEqual(ok.statusCode, 429);
        assert.equal(ok.headers['x-ratelimit-limit'], '3');
      }
      const limited = await t.server.request('GET', `${API}/signing/${fakeToken(10)}`);
      assert.equal(limited.statusCode, 429);
      assert.equal(limited.json().code, 'rate_limited');
      assert.match(limited.json().detail, /this signing link made more than 3 requests/);
      const retry = Number(limited.headers['retry-after']);
      assert.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`);

      // Another link from the same address: the address has used 4 of 5.
      assert.notEqual((await t.server.request('GET', `${API}/signing/${fakeToken(11)}`)).statusCode, 429);
      const byAddress = await t.server.request('GET', `${API}/signing/${fakeToken(12)}`);
      assert.equal(byAddress.statusCode, 429);
      assert.match(byAddress.json().detail, /this client address made more than 5 requests/);

      // API-key routes are not counted against the address.
      assert.equal((await t.server.request('GET', `${API}/envelopes/${DOC}`, { key: t.account.key })).statusCode, 404);

      // The next minute starts afresh.
      t.server.clock.advance(60);
      assert.notEqual((await t.server.request('GET', `${API}/signing/${fakeToken(10)}`)).statusCode, 429);
    });
  });
}
