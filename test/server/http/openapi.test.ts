import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { API, LEGACY, startTestServer, type TestServer } from '../../support/server.js';

describe('OpenAPI documents', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer('sqlite');
  });
  after(() => server.close());

  test('the envelope API document lists its routes with schemas and problem responses', async () => {
    const response = await server.request('GET', `${API}/openapi.json`);
    assert.equal(response.statusCode, 200);
    const doc = response.json();
    assert.equal(doc.openapi, '3.1.0');
    assert.match(doc.servers[0].url, /\/backend\/api\/v1$/);
    for (const path of [
      '/envelopes',
      '/envelopes/{id}',
      '/envelopes/{id}/status',
      '/envelopes/{id}/documents',
      '/envelopes/{id}/documents/{document_id}/fields',
      '/envelopes/{id}/recipients',
      '/documents',
      '/documents/{document_id}',
    ]) {
      assert.ok(doc.paths[path], `${path} documented`);
    }
    const create = doc.paths['/envelopes'].post;
    assert.deepEqual(create.security, [{ apiKey: [] }, { bearer: [] }], 'the key, or a console login');
    assert.equal(create.operationId, 'createEnvelope');
    assert.ok(create.requestBody.content['application/json'].schema.properties.recipients);
    assert.ok(create.responses['409'], 'conflicts documented');
    assert.ok(
      create.parameters.some((p: { name: string; in: string }) => p.name === 'idempotency-key' && p.in === 'header'),
    );
    const attach = doc.paths['/envelopes/{id}/documents'].post.requestBody.content;
    assert.ok(attach['application/json'] && attach['multipart/form-data'], 'both upload forms documented');
    assert.equal(doc.components.securitySchemes.apiKey.name, 'X-Api-Key');
    assert.ok(
      !JSON.stringify(doc.paths).includes('/backend/othercompanyapi'),
      'legacy routes live in their own document',
    );
  });

  test('the legacy document lists login and key routes with trailing slashes', async () => {
    const doc = (await server.request('GET', `${LEGACY}/openapi.json`)).json();
    for (const path of ['/auth/login/', '/auth/refresh/', '/auth/logout/', '/apikey/generate/', '/apikey/get/']) {
      assert.ok(doc.paths[path], `${path} documented`);
    }
    assert.deepEqual(doc.paths['/apikey/generate/'].post.security, [{ bearer: [] }]);
    assert.deepEqual(doc.paths['/auth/login/'].post.security, [], 'public');
  });

  test('each API has a browsable docs page', async () => {
    for (const base of [API, LEGACY]) {
      const page = await server.request('GET', `${base}/docs/`);
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /swagger/i);
    }
  });

  test('the docs pages load their assets, with and without a trailing slash (the bundle is not empty)', async () => {
    for (const base of [API, LEGACY]) {
      for (const page of [`${base}/docs`, `${base}/docs/`]) {
        const html = (await server.request('GET', page)).body;
        const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map(
          (m) => new URL(m[1]!, `http://host${page}`).pathname,
        );
        assert.ok(
          assets.some((a) => a.endsWith('/swagger-ui-bundle.js')),
          `${page} names the bundle`,
        );
        for (const asset of assets) {
          assert.ok(asset.startsWith(`${base}/docs/static/`), `${page}: ${asset} lies under the scope`);
          const response = await server.request('GET', asset);
          assert.equal(response.statusCode, 200, `${page}: ${asset}`);
          assert.ok(
            response.rawPayload.length > 100,
            `${page}: ${asset} has content (${response.rawPayload.length} bytes)`,
          );
        }
      }
    }
  });

  test('unknown routes are problem+json 404', async () => {
    const response = await server.request('GET', `${API}/nothing-here`);
    assert.equal(response.statusCode, 404);
    assert.equal(response.json().code, 'route_not_found');
    assert.match(response.headers['content-type'] as string, /problem\+json/);
  });
});
