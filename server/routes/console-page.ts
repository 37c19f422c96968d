/**
 * The office console (renderer/console.html, built by Vite into renderer/dist-console): GET /app and every
 * path under it answer the same index.html (the console routes in the browser), /app/assets/* its hashed
 * files. `/` opens the console. The page may not be framed and talks only to this server.
 */
import { join } from 'node:path';
import type { FastifyReply } from 'fastify';
import { API_BASE, LEGACY_BASE } from '../../common/api-paths.js';
import { builtAssets, builtPage } from '../http/built-assets.js';
import { rendererBuildDir, signingPagePolicy } from './signing-page.js';
import type { App } from '../http/app-type.js';

export const CONSOLE_PATH = '/app';

/** The signing page's policy (own scripts, styles, fonts, workers; data:/blob: images for pdf.js), never framed. */
export function consolePolicy(): string {
  return signingPagePolicy(null);
}

const MISSING = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Console not built</title></head>
<body style="font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem">
<h1>The office console has not been built</h1>
<p>This server has no <code>renderer/dist-console</code>. Build it with <code>npm run build</code> and reload.
The APIs work meanwhile: <a href="${API_BASE}/docs/">envelope API</a>, <a href="${LEGACY_BASE}/docs/">legacy and account API</a>.</p>
</body></html>`;

export function consolePageRoutes(app: App, options: { dir?: string } = {}): void {
  const dir = options.dir ?? rendererBuildDir('dist-console');
  const sendAsset = builtAssets(dir);
  const loadIndex = builtPage(join(dir, 'console.html'), () =>
    app.log.warn(
      { dir },
      'the console is not built: /app answers 503 until renderer/dist-console exists (npm run build)',
    ),
  );

  const page = async (_request: unknown, reply: FastifyReply) => {
    reply
      .header('Content-Security-Policy', consolePolicy())
      .header('X-Content-Type-Options', 'nosniff')
      .header('X-Frame-Options', 'DENY')
      .header('Referrer-Policy', 'same-origin')
      .header('Cache-Control', 'no-store')
      .header('Permissions-Policy', 'camera=(), microphone=(), geolocation=(), payment=()');
    const html = await loadIndex();
    if (html === null) return reply.code(503).type('text/html; charset=utf-8').send(MISSING);
    return reply.type('text/html; charset=utf-8').send(html);
  };

  app.get('/', { schema: { hide: true } }, (_request, reply) => reply.redirect(`${CONSOLE_PATH}/`, 302));
  app.get(CONSOLE_PATH, { schema: { hide: true } }, page);
  app.get(`${CONSOLE_PATH}/*`, { schema: { hide: true } }, page);
  app.get<{ Params: { file: string } }>(`${CONSOLE_PATH}/assets/:file`, { schema: { hide: true } }, (request, reply) =>
    sendAsset(request, reply, null, request.params.file),
  );
  app.get<{ Params: { dir: string; file: string } }>(
    `${CONSOLE_PATH}/assets/:dir/:file`,
    { schema: { hide: true } },
    (request, reply) => sendAsset(request, reply, request.params.dir, request.params.file),
  );
}
