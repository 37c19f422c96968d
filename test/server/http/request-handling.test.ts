/**
 * Issue 27, point 10: request handling is the same everywhere. A JSON body sent as text/plain is 415 like any
 * other type a route does not take; unknown members are ignored on create and on PATCH alike (docs/api.md,
 * "Unknown members"), while a known member that a PATCH cannot change is still refused.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DATABASES } from '../../support/databases.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, API, LEGACY, useTestServer } from '../../support/server.js';
import { createSaleTemplate } from '../../support/templates.js';

for (const kind of DATABASES) {
  describe(`request handling on ${kind}`, () => {
    const t = useTestServer(kind);
    const call = (method: string, path: string, json: unknown) =>
      t.server.request(method, `${API}${path}`, { key: t.account.key, json });
    const raw = (method: string, url: string, contentType: string, payload: string) =>
      t.server.app.inject({
        method: method as 'POST',
        url,
        headers: { 'x-api-key': t.account.key, 'content-type': contentType },
        payload,
      });

    test('a JSON body sent as text/plain is 415 unsupported_media_type, like application/xml', async () => {
      const { id } = await createSaleTemplate(t.server, t.account.key);
      const json = JSON.stringify({ title: 'Plain' });
      for (const [method, url] of [
        ['POST', `${API}/envelopes`],
        ['PATCH', `${API}/templates/${id}`],
        ['POST', `${LEGACY}/auth/login/`],
      ] as const) {
        for (const type of ['text/plain', 'text/plain; charset=utf-8', 'application/xml']) {
          const response = await raw(method, url, type, json);
          assert.equal(response.statusCode, 415, `${method} ${url} as ${type}: ${response.body}`);
          assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
          assert.equal(response.json().code, 'unsupported_media_type');
        }
      }
      const list = (await t.server.request('GET', `${API}/envelopes?q=Plain`, { key: t.account.key })).json();
      assert.equal(JSON.stringify(list).includes('"Plain"'), false, 'nothing was created');
      const login = await t.server.request('POST', `${LEGACY}/auth/login/`, {
        json: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
      });
      assert.equal(login.statusCode, 200, 'application/json still works');
    });

    test('unknown members are ignored on create and on PATCH; a known read-only member is refused', async () => {
      const created = await call('POST', '/envelopes', {
        title: 'Tolerant',
        colour: 'blue',
        recipients: [{ name: 'Asha', email: 'asha@example.com', shoe_size: 9 }],
      });
      assert.equal(created.statusCode, 201, created.body);
      const envelope = created.json();
      assert.equal('colour' in envelope, false);
      const patched = await call('PATCH', `/envelopes/${envelope.id}`, { title: 'Tolerant 2', colour: 'blue' });
      assert.equal(patched.statusCode, 200, patched.body);
      assert.equal(patched.json().title, 'Tolerant 2');
      assert.equal('colour' in patched.json(), false);
      const onlyUnknown = await call('PATCH', `/envelopes/${envelope.id}`, { colour: 'red' });
      assert.equal(onlyUnknown.statusCode, 200, onlyUnknown.body);
      const status = await call('PATCH', `/envelopes/${envelope.id}`, { status: 'sent', colour: 'red' });
      assert.equal(status.statusCode, 422, status.body);
      assert.deepEqual(
        status.json().errors.map((e: { path: string }) => e.path),
        ['/status'],
      );
      const recipientId = envelope.recipients[0].recipient_id as string;
      const recipient = await call('PATCH', `/envelopes/${envelope.id}/recipients/${recipientId}`, {
        name: 'Asha Rao',
        shoe_size: 9,
      });
      assert.equal(recipient.statusCode, 200, recipient.body);

      const { id } = await createSaleTemplate(t.server, t.account.key);
      const template = await call('PATCH', `/templates/${id}`, { description: 'Edited', colour: 'blue' });
      assert.equal(template.statusCode, 200, template.body);
      assert.equal(template.json().description, 'Edited');
      assert.equal('colour' in template.json(), false);
      const readOnly = await call('PATCH', `/templates/${id}`, { version: 99 });
      assert.equal(readOnly.statusCode, 422, readOnly.body);
      assert.deepEqual(
        readOnly.json().errors.map((e: { path: string }) => e.path),
        ['/version'],
      );
    });
  });
}
