import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { API, LEGACY, startTestServer, type TestServer } from '../../support/server.js';

interface Operation {
  operationId?: string;
  tags?: string[];
  summary?: string;
  security?: Record<string, string[]>[];
  parameters?: { in: string; name: string }[];
}

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

  test('every operation has a stable camelCase operationId, a tag, a one-line summary and its security', async () => {
    const PUBLIC_V1 = /^\/signing\/\{token\}/;
    const PUBLIC_LEGACY = new Set([
      'post /auth/login/',
      'post /auth/refresh/',
      'post /auth/logout/',
      'post /auth/session/',
      'post /auth/session/refresh/',
      'post /auth/session/logout/',
      'post /users/set-password/',
      'post /users/password-reset/',
      'get /document/signed/{token}/',
    ]);
    for (const [base, isPublic] of [
      [API, (_method: string, path: string) => PUBLIC_V1.test(path)],
      [LEGACY, (method: string, path: string) => PUBLIC_LEGACY.has(`${method} ${path}`)],
    ] as const) {
      const doc = (await server.request('GET', `${base}/openapi.json`)).json();
      const ids = new Set<string>();
      const operations: [string, string, Operation][] = [
        ...Object.entries(doc.paths as Record<string, Record<string, Operation>>).flatMap(([path, item]) =>
          Object.entries(item).map(([method, op]) => [method, path, op] as [string, string, Operation]),
        ),
        ...Object.entries((doc.webhooks ?? {}) as Record<string, Record<string, Operation>>).flatMap(([event, item]) =>
          Object.entries(item).map(([method, op]) => [method, event, op] as [string, string, Operation]),
        ),
      ];
      for (const [method, path, op] of operations) {
        const where = `${base} ${method} ${path}`;
        assert.match(op.operationId ?? '', /^[a-z][a-zA-Z0-9]*$/, `${where}: camelCase operationId`);
        assert.ok(!ids.has(op.operationId!), `${where}: operationId ${op.operationId} unique`);
        ids.add(op.operationId!);
        assert.ok(op.tags?.length, `${where}: a tag`);
        assert.match(op.summary ?? '', /^[^\n]+$/, `${where}: a one-line summary`);
        assert.ok(Array.isArray(op.security), `${where}: security stated`);
        if (doc.webhooks?.[path]) continue;
        assert.equal(op.security!.length === 0, isPublic(method, path), `${where}: public exactly when no credential`);
        assert.ok(
          !(op.parameters ?? []).some((p) => p.in === 'header' && p.name.toLowerCase() === 'x-api-key'),
          `${where}: X-Api-Key is a security scheme, not a header parameter`,
        );
      }
    }
    const v1 = (await server.request('GET', `${API}/openapi.json`)).json();
    assert.deepEqual(v1.paths['/envelopes/{id}'].get.security, [{ apiKey: [] }, { bearer: [] }]);
    assert.deepEqual(v1.paths['/sandbox/mock-dsc/requests'].post.security, [{ apiKey: [] }], 'test key only');
  });

  test('the documented request rules are the enforced ones: field members, required multipart parts, URIs', async () => {
    const v1 = (await server.request('GET', `${API}/openapi.json`)).json();
    const field =
      v1.paths['/envelopes/{id}/documents/{document_id}/fields'].put.requestBody.content['application/json'].schema
        .properties.fields.items.properties;
    assert.equal(field.recipient_id.format, 'uuid');
    assert.deepEqual([field.field_type.minimum, field.field_type.maximum], [1, 13]);
    assert.equal(field.page_number.minimum, 1);
    const form = (path: string) => v1.paths[path].post.requestBody.content['multipart/form-data'].schema;
    assert.deepEqual(form('/envelopes/{id}/documents').required, ['file']);
    assert.deepEqual(form('/documents').required, ['file']);
    assert.deepEqual(form('/sandbox/mock-dsc/requests').required.sort(), ['file', 'signer_email', 'signer_name']);
    const legacy = (await server.request('GET', `${LEGACY}/openapi.json`)).json();
    assert.equal(
      legacy.paths['/webhook/save/'].post.requestBody.content['application/json'].schema.properties.webhook_url.format,
      'uri',
    );
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
