/**
 * The hosted signing page (renderer/, built by Vite into renderer/dist): GET /sign/{token} answers its
 * index.html, GET /sign/assets/{file} its hashed assets (cached for a year; the pdf.js worker is one of them).
 *
 * Headers: the page's own Content-Security-Policy, and frame-ancestors from the link's signing session: the
 * allowed origin of an embedded session, 'none' for every other link. The same origin is written into the
 * HTML (meta mohar-embed-origin) so the page posts its messages to that origin only. pdf.js's decoders and
 * standard fonts are in one sub-folder, /sign/assets/pdfjs-<version>/. The token is in the
 * URL, so nothing is cached and no Referer leaves the page.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyReply } from 'fastify';
import type { Context } from '../domain/context.js';
import { API_BASE, SIGNING_PAGE_BASE } from '../../common/api-paths.js';
import { builtAssets, builtPage } from '../http/built-assets.js';
import { embeddingOrigin, resolveSession } from '../domain/workflow/sessions.js';
import { envelopeDocumentIds } from '../domain/workflow/envelope-document-ids.js';
import type { App } from '../http/app-type.js';

/** A build folder of renderer/ in this installation: beside package.json, from source (tsx) or from dist/. */
export function rendererBuildDir(name: 'dist' | 'dist-console'): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return join(dir, 'renderer', name);
}

/** renderer/dist of this installation. */
export function defaultSigningPageDir(): string {
  return rendererBuildDir('dist');
}

const TOKEN = /^[A-Za-z0-9_-]{20,100}$/;

/** The page's policy: its own scripts, styles, fonts and worker; images from data:/blob: (signatures, pdf.js). */
export function signingPagePolicy(frameOrigin: string | null): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "worker-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${frameOrigin ?? "'none'"}`,
  ].join('; ');
}

const MISSING = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Signing page not built</title></head>
<body style="font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem">
<h1>The signing page has not been built</h1>
<p>This server has no <code>renderer/dist</code>. Build it with <code>npm run build</code> (or <code>npx vite build renderer</code>) and reload.</p>
</body></html>`;

/**
 * What a live link's page will fetch first, as <link rel=preload> hints: the signer view and the documents,
 * requested while the page's scripts load rather than after. Dead links get none (the page shows why).
 */
async function preloads(ctx: Context, token: string): Promise<string[]> {
  try {
    const session = await resolveSession(ctx, token);
    const documentIds = await envelopeDocumentIds(ctx, session.envelopeId);
    const base = `${API_BASE}/signing/${token}`;
    return [base, ...documentIds.map((id) => `${base}/documents/${id}`)];
  } catch {
    return [];
  }
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function signingPageRoutes(app: App, ctx: Context, options: { dir?: string } = {}): void {
  const dir = options.dir ?? defaultSigningPageDir();
  const sendAsset = builtAssets(dir);
  const loadIndex = builtPage(join(dir, 'index.html'), () =>
    app.log.warn(
      { dir },
      'the signing page is not built: /sign/{token} answers 503 until renderer/dist exists (npm run build)',
    ),
  );

  const pageHeaders = (reply: FastifyReply, frameOrigin: string | null) => {
    reply
      .header('Content-Security-Policy', signingPagePolicy(frameOrigin))
      .header('X-Content-Type-Options', 'nosniff')
      .header('Referrer-Policy', 'no-referrer')
      .header('Cache-Control', 'no-store')
      .header('Permissions-Policy', 'camera=(), microphone=(), geolocation=(), payment=()');
    if (!frameOrigin) reply.header('X-Frame-Options', 'DENY');
  };

  app.get<{ Params: { token: string } }>(
    `${SIGNING_PAGE_BASE}/:token`,
    { schema: { hide: true } },
    async (request, reply) => {
      const token = TOKEN.test(request.params.token) ? request.params.token : null;
      const frameOrigin = token ? await embeddingOrigin(ctx, token) : null;
      pageHeaders(reply, frameOrigin);
      const html = await loadIndex();
      if (html === null) return reply.code(503).type('text/html; charset=utf-8').send(MISSING);
      const meta = frameOrigin
        ? `<meta name="mohar-embed-origin" content="${escapeAttribute(frameOrigin)}" />\n  `
        : '';
      const hints = (token ? await preloads(ctx, token) : [])
        .map((url) => `<link rel="preload" as="fetch" crossorigin="anonymous" href="${escapeAttribute(url)}" />\n  `)
        .join('');
      return reply.type('text/html; charset=utf-8').send(html.replace('</head>', `${meta}${hints}</head>`));
    },
  );

  app.get<{ Params: { file: string } }>(
    `${SIGNING_PAGE_BASE}/assets/:file`,
    { schema: { hide: true } },
    (request, reply) => sendAsset(request, reply, null, request.params.file),
  );
  app.get<{ Params: { dir: string; file: string } }>(
    `${SIGNING_PAGE_BASE}/assets/:dir/:file`,
    { schema: { hide: true } },
    (request, reply) => sendAsset(request, reply, request.params.dir, request.params.file),
  );
}
