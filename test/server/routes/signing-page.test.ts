/**
 * Serving the hosted signing page: its HTML at /sign/{token} with the right headers for each kind of link,
 * its assets (long cache, gzip), and a clear answer when the page was never built.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import Fastify from 'fastify';
import { installProblemHandlers } from '../../../server/http/problem.js';
import { signingPageRoutes } from '../../../server/routes/signing-page.js';
import type { App } from '../../../server/http/app-type.js';
import { DATABASES } from '../../support/databases.js';
import { makeDraft, sendDraft } from '../../support/envelopes.js';
import { ensureRendererBuilt } from '../../support/renderer.js';
import { API, LEGACY, useTestServer } from '../../support/server.js';

const ORIGIN = 'https://app.example.com';

function directives(csp: string): Map<string, string> {
  return new Map(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([name, ...values]) => [name!, values.join(' ')]),
  );
}

for (const kind of DATABASES) {
  describe(`signing page served at /sign/{token} on ${kind}`, () => {
    ensureRendererBuilt();
    const t = useTestServer(kind);
    const path = (url: string) => new URL(url).pathname;

    async function link(mode: 'redirect' | 'embedded'): Promise<string> {
      const draft = await makeDraft(t.server, t.account.key, {
        recipients: [{ name: 'Asha', email: 'asha@example.com' }],
      });
      await sendDraft(t.server, t.account.key, draft);
      const session = await t.server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
        key: t.account.key,
        json: { recipient_id: draft.recipientIds[0], mode, ...(mode === 'embedded' ? { origin: ORIGIN } : {}) },
      });
      assert.equal(session.statusCode, 201, session.body);
      return path(session.json().signing_url);
    }

    test('a redirect link: the page, its own CSP, framing refused, no referrer, no cache', async () => {
      const page = await t.server.request('GET', await link('redirect'));
      assert.equal(page.statusCode, 200);
      assert.match(String(page.headers['content-type']), /^text\/html/);
      const csp = directives(String(page.headers['content-security-policy']));
      assert.equal(csp.get('frame-ancestors'), "'none'");
      assert.equal(csp.get('script-src'), "'self'");
      assert.equal(csp.get('worker-src'), "'self'");
      assert.equal(csp.get('default-src'), "'none'");
      assert.match(csp.get('img-src')!, /data:/);
      assert.match(csp.get('img-src')!, /blob:/);
      assert.equal(page.headers['x-frame-options'], 'DENY');
      assert.equal(page.headers['x-content-type-options'], 'nosniff');
      assert.equal(page.headers['referrer-policy'], 'no-referrer');
      assert.equal(page.headers['cache-control'], 'no-store');
      assert.doesNotMatch(page.body, /mohar-embed-origin/);
      assert.match(page.body, /<script type="module"[^>]* src="\/sign\/assets\/[^"]+\.js"/);
    });

    test("a live link's page preloads its signer view and documents; a dead one does not", async () => {
      const url = await link('redirect');
      const token = url.split('/').pop()!;
      const hints = [
        ...(await t.server.request('GET', url)).body.matchAll(
          /<link rel="preload" as="fetch" crossorigin="anonymous" href="([^"]+)"/g,
        ),
      ].map((m) => m[1]);
      assert.equal(hints.length, 2);
      assert.equal(hints[0], `${API}/signing/${token}`);
      assert.match(hints[1]!, new RegExp(`^${API}/signing/${token}/documents/[0-9a-f-]{36}$`));
      for (const hint of hints) assert.equal((await t.server.request('GET', hint!)).statusCode, 200, hint);
      assert.match(
        (await t.server.request('GET', url)).body,
        /<link rel="modulepreload"[^>]*load-pdf/,
        'pdf.js is fetched with the entry',
      );

      t.server.clock.advance(15 * 60 + 1);
      assert.doesNotMatch((await t.server.request('GET', url)).body, /rel="preload"/);
    });

    test('an embedded link: frame-ancestors is the allowed origin, and the page knows it', async () => {
      const admin = await t.server.login(t.account.email, t.account.password);
      assert.equal(
        (
          await t.server.request('PUT', `${LEGACY}/account/settings/`, {
            token: admin,
            json: { allowed_origins: [ORIGIN] },
          })
        ).statusCode,
        200,
      );
      const page = await t.server.request('GET', await link('embedded'));
      assert.equal(page.statusCode, 200);
      assert.equal(directives(String(page.headers['content-security-policy'])).get('frame-ancestors'), ORIGIN);
      assert.equal(
        page.headers['x-frame-options'],
        undefined,
        'X-Frame-Options cannot name an origin: CSP alone decides',
      );
      assert.match(page.body, new RegExp(`<meta name="mohar-embed-origin" content="${ORIGIN}" />`));
    });

    test('an unknown token still gets the page (it explains the link is dead) and may not be framed', async () => {
      const page = await t.server.request('GET', '/sign/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
      assert.equal(page.statusCode, 200);
      assert.equal(directives(String(page.headers['content-security-policy'])).get('frame-ancestors'), "'none'");
    });

    test('assets: hashed names cached for a year, gzip when asked, the pdf.js worker a file of its own', async () => {
      const html = (await t.server.request('GET', await link('redirect'))).body;
      const entry = /src="(\/sign\/assets\/[^"]+\.js)"/.exec(html)![1]!;
      const plain = await t.server.request('GET', entry);
      assert.equal(plain.statusCode, 200);
      assert.match(String(plain.headers['content-type']), /^text\/javascript/);
      assert.equal(plain.headers['cache-control'], 'public, max-age=31536000, immutable');
      assert.equal(plain.headers['content-encoding'], undefined);
      const zipped = await t.server.request('GET', entry, { headers: { 'accept-encoding': 'gzip, deflate, br' } });
      assert.equal(zipped.headers['content-encoding'], 'gzip');
      assert.ok(gunzipSync(zipped.rawPayload).equals(plain.rawPayload));
      assert.ok(zipped.rawPayload.length < plain.rawPayload.length / 2);

      // The worker is named in the lazily loaded pdf.js chunk, which the entry names.
      const chunks = await Promise.all(
        [...plain.body.matchAll(/(?:assets\/|\.\/)([\w.-]+\.js)/g)].map((m) =>
          t.server.request('GET', `/sign/assets/${m[1]}`),
        ),
      );
      const worker = /assets\/(pdf\.worker[\w.-]*\.mjs)/.exec([plain.body, ...chunks.map((c) => c.body)].join('\n'));
      assert.ok(worker, 'the pdf.js worker is referenced as its own asset');
      const served = await t.server.request('GET', `/sign/assets/${worker[1]}`);
      assert.equal(served.statusCode, 200);
      assert.match(String(served.headers['content-type']), /^text\/javascript/);

      // pdf.js's decoders and standard fonts, under the versioned names the page gives pdf.js.
      const { version } = JSON.parse(
        readFileSync(new URL('../../../node_modules/pdfjs-dist/package.json', import.meta.url), 'utf8'),
      ) as { version: string };
      const wasm = await t.server.request('GET', `/sign/assets/pdfjs-${version}/openjpeg.wasm`);
      assert.equal(wasm.statusCode, 200);
      assert.equal(wasm.headers['content-type'], 'application/wasm');
      assert.equal(wasm.rawPayload.subarray(0, 4).toString('latin1'), '\0asm');
      const font = await t.server.request('GET', `/sign/assets/pdfjs-${version}/LiberationSans-Regular.ttf`);
      assert.equal(font.statusCode, 200);
      assert.equal(font.headers['content-type'], 'font/ttf');
    });

    test('no way out of the assets folder; unknown assets are 404', async () => {
      for (const url of [
        '/sign/assets/..%2F..%2Fpackage.json',
        '/sign/assets/.hidden',
        '/sign/assets/missing-abc123.js',
        '/sign/assets/pdfjs-1.2.3/../../../package.json',
        '/sign/assets/fonts/x.ttf',
        '/sign/assets/pdfjs-5.6.205/..%2F..%2F..%2Fpackage.json',
      ]) {
        const response = await t.server.request('GET', url);
        assert.equal(response.statusCode, 404, url);
        assert.equal(response.json().code, 'route_not_found');
      }
    });
  });
}

describe('signing page not built', () => {
  test('answers 503 with a message saying how to build it, not a crash; serves the page once it is built', async () => {
    const app = Fastify({ logger: false }) as unknown as App;
    installProblemHandlers(app);
    const missing = join(mkdtempSync(join(tmpdir(), 'mohar-no-page-')), 'dist');
    // The page route only reads the database for well-formed tokens; this one is not.
    signingPageRoutes(app, {} as never, { dir: missing });
    const page = await app.inject({ method: 'GET', url: '/sign/short' });
    assert.equal(page.statusCode, 503);
    assert.match(page.body, /has not been built/);
    assert.match(page.body, /npm run build/);
    assert.equal(directives(String(page.headers['content-security-policy'])).get('frame-ancestors'), "'none'");
    assert.equal((await app.inject({ method: 'GET', url: '/sign/assets/index.js' })).statusCode, 404);

    // Built later, while the server runs: served without a restart.
    mkdirSync(join(missing, 'assets'), { recursive: true });
    writeFileSync(
      join(missing, 'index.html'),
      '<!doctype html><html><head><title>built</title></head><body></body></html>',
    );
    writeFileSync(join(missing, 'assets', 'index.js'), 'console.log(1)');
    const built = await app.inject({ method: 'GET', url: '/sign/short' });
    assert.equal(built.statusCode, 200);
    assert.match(built.body, /<title>built<\/title>/);
    assert.equal((await app.inject({ method: 'GET', url: '/sign/assets/index.js' })).statusCode, 200);
    await app.close();
  });
});
