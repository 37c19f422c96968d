/**
 * Issue 27, points 1 and 2: template settings follow the envelope create rules on create, PATCH (JSON and
 * multipart) and import; a refused write stores nothing, and the template keeps working. Both databases.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { importTemplate } from '../../../server/domain/templates/create-template.js';
import { DATABASES } from '../../support/databases.js';
import { makePdf } from '../../support/pdf-fixtures.js';
import { API, useTestServer } from '../../support/server.js';
import { createSaleTemplate, instantiate, jsonPart, multipart, PEOPLE, ROLES } from '../../support/templates.js';

/** Every kind of bad value of every settings member, with the member the problem must name. */
const INVALID_SETTINGS: readonly [Record<string, unknown>, string][] = [
  [{ expire_in_days: 'x' }, 'expire_in_days'],
  [{ expire_in_days: -5 }, 'expire_in_days'],
  [{ expire_in_days: 0 }, 'expire_in_days'],
  [{ expire_in_days: 3651 }, 'expire_in_days'],
  [{ expire_in_days: 1.5 }, 'expire_in_days'],
  [{ routing_order: 'random' }, 'routing_order'],
  [{ routing_order: 1 }, 'routing_order'],
  [{ message: 5 }, 'message'],
  [{ message: 'm'.repeat(10_001) }, 'message'],
  [{ redirect_url: 'ftp://example.com/' }, 'redirect_url'],
  [{ redirect_url: 42 }, 'redirect_url'],
  [{ metadata: 'x' }, 'metadata'],
  [{ metadata: { blob: 'b'.repeat(17 * 1024) } }, 'metadata'],
  [{ reminders: { first_after_days: 0 } }, 'reminders'],
  [{ reminders: 'weekly' }, 'reminders'],
];

/** `member`: '/expire_in_days', or '' for the settings object itself. */
function assertNamesSetting(response: LightMyRequestResponse, member: string, label: string): void {
  assert.equal(response.statusCode, 422, `${label}: ${response.body}`);
  assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
  const problem = response.json() as { code: string; errors?: { path?: string }[] };
  assert.equal(problem.code, 'validation_failed', label);
  const paths = (problem.errors ?? []).map((e) => e.path ?? '');
  assert.ok(
    paths.some((p) => p.includes(`settings${member}`)),
    `${label}: settings${member} in ${paths.join(', ')}`,
  );
}

for (const kind of DATABASES) {
  describe(`template settings are checked on ${kind}`, () => {
    const t = useTestServer(kind);
    const call = (method: string, path: string, json?: unknown) =>
      t.server.request(method, `${API}${path}`, { key: t.account.key, ...(json === undefined ? {} : { json }) });
    const templateCount = async () => (await call('GET', '/templates?archived=all&limit=200')).json().templates.length;

    test('a bad PATCH answers 422 naming the member and stores nothing; the template keeps working', async () => {
      const { id } = await createSaleTemplate(t.server, t.account.key);
      for (const [settings, member] of [
        ...INVALID_SETTINGS,
        [{ expire_in_days: 7, routing_order: 'random' }, 'routing_order'],
      ] as const) {
        const label = JSON.stringify(settings).slice(0, 80);
        assertNamesSetting(await call('PATCH', `/templates/${id}`, { settings }), `/${member}`, `JSON ${label}`);
        const form = await multipart(t.server, 'PATCH', `${API}/templates/${id}`, t.account.key, [
          jsonPart('template', { settings }),
        ]);
        assertNamesSetting(form, `/${member}`, `multipart ${label}`);
      }
      assertNamesSetting(await call('PATCH', `/templates/${id}`, { settings: 'x' }), '', 'settings: "x"');

      const read = await call('GET', `/templates/${id}`);
      assert.equal(read.statusCode, 200, read.body);
      assert.equal(read.json().version, 1, 'no version was stored');
      assert.equal(read.json().settings.expire_in_days, 14);
      assert.equal((await call('GET', `/templates/${id}/versions`)).json().versions.length, 1);
      const made = await instantiate(t.server, t.account.key, id, { recipients: PEOPLE });
      assert.equal(made.statusCode, 201, made.body);
      assert.equal(made.json().expire_in_days, 14);
      assert.equal(made.json().routing_order, 'sequential');
      assert.equal((await call('DELETE', `/templates/${id}`)).statusCode, 200);
      assert.equal((await call('POST', `/templates/${id}/restore`)).statusCode, 200);
    });

    test('a good PATCH still merges: null removes a setting (its default applies), unknown members are ignored', async () => {
      const { id } = await createSaleTemplate(t.server, t.account.key);
      const changed = await call('PATCH', `/templates/${id}`, {
        settings: { expire_in_days: 30, routing_order: 'parallel', colour: 'blue' },
        colour: 'blue',
      });
      assert.equal(changed.statusCode, 200, changed.body);
      assert.equal(changed.json().version, 2);
      assert.equal(changed.json().settings.expire_in_days, 30);
      assert.equal(changed.json().settings.routing_order, 'parallel');
      assert.equal('colour' in changed.json().settings, false, 'an unknown settings member is not stored');
      const cleared = await call('PATCH', `/templates/${id}`, {
        settings: { expire_in_days: null, routing_order: null },
      });
      assert.equal(cleared.statusCode, 200, cleared.body);
      assert.equal(cleared.json().settings.expire_in_days, null);
      assert.equal(cleared.json().settings.routing_order, 'sequential');
    });

    test('create (multipart), import (JSON and the CLI path) refuse bad settings and store no template', async () => {
      const before = await templateCount();
      const pdf = makePdf({ pages: 2 });
      for (const [settings, member] of INVALID_SETTINGS) {
        const label = JSON.stringify(settings).slice(0, 80);
        const created = await multipart(t.server, 'POST', `${API}/templates`, t.account.key, [
          jsonPart('template', { name: 'Bad', settings, roles: ROLES, documents: [{ file: 'doc' }] }),
          { field: 'doc', filename: 'doc.pdf', bytes: pdf },
        ]);
        assertNamesSetting(created, `/${member}`, `multipart create ${label}`);
        const imported = await call('POST', '/templates', {
          format: 'mohar.template/v1',
          name: 'Bad',
          settings,
          roles: ROLES,
          documents: [{ filename: 'doc.pdf', content_base64: pdf.toString('base64') }],
        });
        assertNamesSetting(imported, `/${member}`, `import ${label}`);
        await assert.rejects(
          importTemplate(
            t.server.ctx,
            t.account.accountId,
            { type: 'admin', id: null },
            {
              format: 'mohar.template/v1',
              name: 'Bad',
              settings: settings as never,
              roles: ROLES as never,
            },
          ),
          (error: { code?: string; errors?: { path?: string }[] }) =>
            error.code === 'validation_failed' &&
            (error.errors ?? []).some((e) => e.path?.startsWith(`/settings/${member}`)),
          `CLI import ${label}`,
        );
      }
      assert.equal(await templateCount(), before, 'no template was stored');
    });
  });
}
