/**
 * documentDetails.doc_url through the API: without MOHAR_FETCH_ALLOW_PRIVATE loopback and private targets are
 * refused before any connection; with it, the size limit stops reading at MOHAR_MAX_PDF_BYTES. (A public
 * address redirecting to a private one is tested on the guarded GET itself: test/server/net/guarded-get.test.ts.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DATABASES } from '../../support/databases.js';
import { LEGACY, useTestServer } from '../../support/server.js';
import { legacyCreate, startDocServer, type DocServer } from './helpers.js';

let docs: DocServer;
before(async () => {
  docs = await startDocServer();
});
after(() => docs.close());

for (const kind of DATABASES) {
  describe(`doc_url without MOHAR_FETCH_ALLOW_PRIVATE on ${kind}`, () => {
    const t = useTestServer(kind);

    test('loopback, private, link-local and non-http targets are refused unfetched', async () => {
      const port = new URL(docs.base).port;
      const before = [...docs.hits.values()].reduce((a, b) => a + b, 0);
      for (const url of [
        `${docs.base}/doc.pdf`,
        `http://localhost:${port}/doc.pdf`,
        `http://[::1]:${port}/doc.pdf`,
        'http://10.0.0.7/doc.pdf',
        'http://192.168.1.20/doc.pdf',
        'http://169.254.169.254/latest/meta-data/',
        `http://[::ffff:127.0.0.1]:${port}/doc.pdf`,
        'file:///etc/passwd',
        'ftp://example.com/doc.pdf',
      ]) {
        const response = await legacyCreate(t.server, t.account.key, { docUrl: url, mail: false });
        assert.equal(response.statusCode, 422, `${url}: ${response.body}`);
        assert.equal(response.json().code, 'doc_url_not_allowed', url);
        assert.equal(response.json().errors[0].path, '/documentDetails/doc_url');
      }
      assert.equal(
        [...docs.hits.values()].reduce((a, b) => a + b, 0),
        before,
        'the local server was never contacted',
      );
      const usage = (await t.server.request('GET', `${LEGACY}/usage/summary/`, { key: t.account.key })).json();
      assert.equal(usage.calls_used, 0);
    });
  });

  describe(`doc_url size limit on ${kind}`, () => {
    const t = useTestServer(kind, { MOHAR_FETCH_ALLOW_PRIVATE: '1', MOHAR_MAX_PDF_BYTES: '64KiB' });

    test('a stream longer than MOHAR_MAX_PDF_BYTES is cut at the limit', async () => {
      const response = await legacyCreate(t.server, t.account.key, { docUrl: `${docs.base}/endless`, mail: false });
      assert.equal(response.statusCode, 413, response.body);
      assert.equal(response.json().code, 'file_too_large');
      assert.equal(response.json().errors[0].path, '/documentDetails/doc_url');
      // The server writes until the client hangs up: it got far less than its own 64 MiB stop.
      await new Promise((resolve) => setTimeout(resolve, 100));
      const written = docs.endlessWritten.at(-1);
      assert.ok(
        written !== undefined && written < 16 * 1024 * 1024,
        `the reader stopped early (server wrote ${written} bytes)`,
      );
    });

    test('a declared Content-Length over the limit is refused without reading', async () => {
      const response = await legacyCreate(t.server, t.account.key, {
        docUrl: `${docs.base}/declared-big`,
        mail: false,
      });
      assert.equal(response.statusCode, 413, response.body);
      assert.match(response.json().detail, /10737418240 bytes; the limit is 65536/);
    });

    test('a PDF under the limit is accepted', async () => {
      assert.equal(
        (await legacyCreate(t.server, t.account.key, { docUrl: `${docs.base}/doc.pdf`, mail: false })).statusCode,
        200,
      );
    });
  });
}
