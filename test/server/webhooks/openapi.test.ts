/** The webhook routes and the delivered event are in the OpenAPI documents (generated from the route schemas). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { API, LEGACY, useTestServer } from '../../support/server.js';
import { WEBHOOK_EVENT_TYPES } from '../../../common/events.js';

describe('webhooks in OpenAPI', () => {
  const ctx = useTestServer('sqlite');

  test('the legacy document lists the portal routes; both documents describe every event delivered', async () => {
    const legacy = (await ctx.server.request('GET', `${LEGACY}/openapi.json`)).json();
    for (const path of [
      '/webhook/save/',
      '/webhook/',
      '/webhook/secret/',
      '/webhook/secret/rotate/',
      '/webhook/test/',
      '/webhook/deliveries/',
      '/webhook/deliveries/{delivery_id}/',
      '/webhook/deliveries/{delivery_id}/redeliver/',
      '/webhook/attempts/',
    ]) {
      assert.ok(legacy.paths[path], path);
    }
    // 400, 413, 415: the body is parsed before the route runs; 500 and 503 on every call (http/openapi-responses.ts).
    assert.deepEqual(Object.keys(legacy.paths['/webhook/save/'].post.responses).sort(), [
      '200',
      '400',
      '401',
      '403',
      '413',
      '415',
      '422',
      '500',
      '503',
    ]);
    const v1 = (await ctx.server.request('GET', `${API}/openapi.json`)).json();
    for (const document of [legacy, v1]) {
      assert.deepEqual(Object.keys(document.webhooks).sort(), [...WEBHOOK_EVENT_TYPES].sort());
      const completed = document.webhooks['envelope.completed'].post;
      assert.ok(
        completed.parameters.some(
          (p: { name: string; required: boolean }) => p.name === 'X-Service-Signature' && p.required,
        ),
      );
      const schema = completed.requestBody.content['application/json'].schema;
      assert.deepEqual(schema.required.sort(), ['account_id', 'created_at', 'data', 'id', 'sequence', 'type']);
      assert.ok(schema.properties.data.properties.documents);
    }
  });
});
