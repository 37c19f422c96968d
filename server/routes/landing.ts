/** The root page and a health check, so a newcomer who opens the server in a browser finds their way. */
import type { App } from './types.js';

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Mohar office server</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:42rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a}a{color:#0b57d0}code{background:#f1f1f1;padding:0 .25rem}</style>
</head><body>
<h1>Mohar office server</h1>
<p>The server is running. Its APIs:</p>
<ul>
<li><a href="/backend/api/v1/docs">Envelope API v1</a> (<a href="/backend/api/v1/openapi.json">OpenAPI</a>)</li>
<li><a href="/backend/othercompanyapi/docs">Legacy and account API</a> (<a href="/backend/othercompanyapi/openapi.json">OpenAPI</a>)</li>
</ul>
<p>Log in with the api_admin e-mail and password printed at first start (<code>POST /backend/othercompanyapi/auth/login/</code>), then create an API key with <code>POST /backend/othercompanyapi/apikey/generate/</code>.</p>
</body></html>`;

export function landingRoutes(app: App): void {
  app.get('/', { schema: { hide: true } }, (_request, reply) => reply.type('text/html; charset=utf-8').send(PAGE));
  app.get('/healthz', { schema: { hide: true } }, () => ({ status: 'ok' }));
}
