/**
 * Serving the office console: / opens it, every path under /app answers its page with a strict CSP, assets are cached.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import Fastify from 'fastify';
import { installProblemHandlers } from '../../../server/http/problem.js';
import { consolePageRoutes } from '../../../server/routes/console-page.js';
import type { App } from '../../../server/http/app-type.js';
import { CONSOLE_DIST, ensureConsoleBuilt } from '../../support/renderer.js';

async function appWith(dir?: string): Promise<App> {
  const app = Fastify({ logger: false }) as unknown as App;
  installProblemHandlers(app);
  consolePageRoutes(app, dir ? { dir } : {});
  await app.ready();
  return app;
}

describe('the office console at /app', () => {
  ensureConsoleBuilt();

  test('/ opens the console; every path under /app answers its page with a strict policy', async () => {
    const app = await appWith();
    const root = await app.inject({ method: 'GET', url: '/' });
    assert.equal(root.statusCode, 302);
    assert.equal(root.headers.location, '/app/');
    for (const url of ['/app', '/app/', '/app/envelopes/123', '/app/templates/new?x=1']) {
      const page = await app.inject({ method: 'GET', url });
      assert.equal(page.statusCode, 200, url);
      assert.match(page.body, /<title>Mohar office<\/title>/);
      const csp = String(page.headers['content-security-policy']);
      assert.match(csp, /default-src 'none'/);
      assert.match(csp, /script-src 'self'(;|$)/);
      assert.match(csp, /frame-ancestors 'none'/);
      assert.equal(page.headers['x-frame-options'], 'DENY');
      assert.equal(page.headers['cache-control'], 'no-store');
    }
    await app.close();
  });

  test('its scripts are served from /app/assets with a long cache, gzipped when asked; unknown names 404', async () => {
    const app = await appWith();
    const script = readdirSync(join(CONSOLE_DIST, 'assets')).find((f) => f.endsWith('.js'))!;
    const page = await app.inject({ method: 'GET', url: '/app/' });
    assert.ok(
      page.body.includes(`/app/assets/${script}`) || page.body.includes('/app/assets/'),
      'the page loads its assets from /app/assets',
    );
    const asset = await app.inject({
      method: 'GET',
      url: `/app/assets/${script}`,
      headers: { 'accept-encoding': 'gzip' },
    });
    assert.equal(asset.statusCode, 200);
    assert.equal(asset.headers['content-encoding'], 'gzip');
    assert.match(String(asset.headers['cache-control']), /immutable/);
    assert.equal((await app.inject({ method: 'GET', url: '/app/assets/..%2Fconsole.html' })).statusCode, 404);
    assert.equal((await app.inject({ method: 'GET', url: '/app/assets/nope.js' })).statusCode, 404);
    await app.close();
  });

  test('not built: 503 with how to build it and where the APIs are', async () => {
    const app = await appWith(mkdtempSync(join(tmpdir(), 'mohar-no-console-')));
    const page = await app.inject({ method: 'GET', url: '/app/' });
    assert.equal(page.statusCode, 503);
    assert.match(page.body, /npm run build/);
    await app.close();
  });
});
