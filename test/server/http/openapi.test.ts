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
    for (const path of ['/envelopes', '/envelopes/{id}', '/envelopes/{id}/status', '/envelopes/{id}/documents', '/envelopes/{id}/documents/{document_id}/fields', '/envelopes/{id}/recipients', '/documents', '/documents/{document_id}']) {
      assert.ok(doc.paths[path], `${path} documented`);
    }
    const create = doc.paths['/envelopes'].post;
    assert.deepEqual(create.security, [{ apiKey: [] }]);
    assert.ok(create.requestBody.content['application/json'].schema.properties.recipients);
    assert.ok(create.responses['409'], 'conflicts documented');
    assert.ok(create.parameters.some((p: { name: string; in: string }) => p.name === 'idempotency-key' && p.in === 'header'));
    const attach = doc.paths['/envelopes/{id}/documents'].post.requestBody.content;
    assert.ok(attach['application/json'] && attach['multipart/form-data'], 'both upload forms documented');
    assert.equal(doc.components.securitySchemes.apiKey.name, 'X-Api-Key');
    assert.ok(!JSON.stringify(doc.paths).includes('/backend/othercompanyapi'), 'legacy routes live in their own document');
  });

  test('the legacy document lists login and key routes with trailing slashes', async () => {
    const doc = (await server.request('GET', `${LEGACY}/openapi.json`)).json();
    for (const path of ['/auth/login/', '/auth/refresh/', '/auth/logout/', '/apikey/generate/', '/apikey/get/']) assert.ok(doc.paths[path], `${path} documented`);
    assert.deepEqual(doc.paths['/apikey/generate/'].post.security, [{ bearer: [] }]);
  });

  test('each API has a browsable docs page', async () => {
    for (const base of [API, LEGACY]) {
      const page = await server.request('GET', `${base}/docs/`);
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /swagger/i);
    }
  });

  test('unknown routes are problem+json 404', async () => {
    const response = await server.request('GET', `${API}/nothing-here`);
    assert.equal(response.statusCode, 404);
    assert.equal(response.json().code, 'route_not_found');
    assert.match(response.headers['content-type'] as string, /problem\+json/);
  });
});
