/** Every envelope-API route: 401 without a valid key, 404 (never 403) for another account's ids. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DATABASES } from '../../support/databases.js';
import { makePdf } from '../../support/pdf-fixtures.js';
import { API, startTestServer, type RequestOptions, type TestAccount, type TestServer } from '../../support/server.js';

for (const kind of DATABASES) {
  describe(`access control on ${kind}`, () => {
    let server: TestServer;
    let owner: TestAccount;
    let stranger: TestAccount;
    let envelopeId: string;
    let documentId: string;
    before(async () => {
      server = await startTestServer(kind);
      owner = await server.newAccount();
      stranger = await server.newAccount();
      const envelope = (
        await server.request('POST', `${API}/envelopes`, {
          key: owner.key,
          json: { title: 'private', recipients: [{ name: 'A', email: 'a@example.com' }] },
        })
      ).json();
      envelopeId = envelope.id;
      documentId = (
        await server.request('POST', `${API}/envelopes/${envelopeId}/documents`, {
          key: owner.key,
          file: { bytes: makePdf() },
        })
      ).json().document_id;
    });
    after(() => server.close());

    const routes = (): [string, string, RequestOptions][] => [
      ['POST', `${API}/envelopes`, { json: { title: 'x' } }],
      ['GET', `${API}/envelopes/${envelopeId}`, {}],
      ['GET', `${API}/envelopes/${envelopeId}/status`, {}],
      ['POST', `${API}/envelopes/${envelopeId}/recipients`, { json: { name: 'B', email: 'b@example.com' } }],
      ['POST', `${API}/envelopes/${envelopeId}/documents`, { json: { document_id: documentId } }],
      ['POST', `${API}/envelopes/${envelopeId}/documents`, { file: { bytes: makePdf() } }],
      ['PUT', `${API}/envelopes/${envelopeId}/documents/${documentId}/fields`, { json: { fields: [] } }],
      ['POST', `${API}/documents`, { file: { bytes: makePdf() } }],
      ['GET', `${API}/documents/${documentId}`, {}],
      ['GET', `${API}/documents/${documentId}/content`, {}],
    ];

    test('a missing or unknown key is 401 invalid_api_key on every route', async () => {
      for (const [method, url, options] of routes()) {
        for (const key of [undefined, 'qsk_live_doesnotexist', '']) {
          const response = await server.request(method, url, { ...options, ...(key === undefined ? {} : { key }) });
          assert.equal(response.statusCode, 401, `${method} ${url} key=${key}`);
          assert.equal(response.json().code, 'invalid_api_key');
        }
      }
    });

    test("another account's key gets 404 for every envelope and document id", async () => {
      for (const [method, url, options] of routes()) {
        if (!url.includes(envelopeId) && !url.includes(documentId)) continue;
        const response = await server.request(method, url, { ...options, key: stranger.key });
        assert.equal(response.statusCode, 404, `${method} ${url}: ${response.body}`);
        assert.match(response.json().code, /^(envelope|document)_not_found$/);
      }
      // The stranger cannot attach the owner's workspace document to their own envelope either.
      const own = (
        await server.request('POST', `${API}/envelopes`, { key: stranger.key, json: { title: 'mine' } })
      ).json();
      const borrowed = await server.request('POST', `${API}/envelopes/${own.id}/documents`, {
        key: stranger.key,
        json: { document_id: documentId },
      });
      assert.equal(borrowed.statusCode, 404);
      const view = (await server.request('GET', `${API}/envelopes/${envelopeId}`, { key: owner.key })).json();
      assert.equal(view.recipients.length, 1, "nothing was changed by the stranger's calls");
      assert.equal(view.documents.length, 1);
    });

    test('ids that are not UUIDs are validation errors, not lookups', async () => {
      const response = await server.request('GET', `${API}/envelopes/not-a-uuid`, { key: owner.key });
      assert.equal(response.statusCode, 422);
      assert.equal(response.json().code, 'validation_failed');
    });
  });
}
