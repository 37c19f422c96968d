/**
 * The public verifier (issue 28, point 8; docs/verify.md): GET /verify answers the page (renderer/verify.html,
 * built with the signing page into renderer/dist, its assets under /sign/assets/), POST /verify takes a PDF
 * (application/pdf body, or a multipart part named `file`) and answers the report as JSON. No login; the upload is
 * verified in the PDF worker pool with the intake limits and never stored; uploads are limited per client address
 * (MOHAR_VERIFY_RATE_LIMIT_PER_MINUTE) before their body is read.
 */
import { join } from 'node:path';
import { Type } from 'typebox';
import { MoharError } from '../../common/errors.js';
import type { Context } from '../domain/context.js';
import { verifyPublicUpload } from '../domain/verify/public-verify.js';
import { builtPage } from '../http/built-assets.js';
import { readFilePart } from '../http/multipart.js';
import { acceptPdfBodies } from '../http/pdf-body.js';
import { limitPerAddress } from '../http/rate-limit.js';
import { problems } from '../http/schemas/common.js';
import { PublicVerifyResponse } from '../http/schemas/verify.js';
import { defaultSigningPageDir, signingPagePolicy } from './signing-page.js';
import type { App } from '../http/app-type.js';

export const VERIFY_PATH = '/verify';

const MISSING = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Verify page not built</title></head>
<body style="font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem">
<h1>The verify page has not been built</h1>
<p>This server has no <code>renderer/dist/verify.html</code>. Build it with <code>npm run build</code> and reload.
Programs can POST a PDF to <code>/verify</code> meanwhile (docs/verify.md).</p>
</body></html>`;

export function verifyPageRoutes(app: App, ctx: Context, options: { dir?: string } = {}): void {
  const dir = options.dir ?? defaultSigningPageDir();
  const loadPage = builtPage(join(dir, 'verify.html'), () =>
    app.log.warn(
      { dir },
      'the verify page is not built: GET /verify answers 503 until renderer/dist/verify.html exists',
    ),
  );

  app.get(VERIFY_PATH, { schema: { hide: true } }, async (_request, reply) => {
    reply
      .header('Content-Security-Policy', signingPagePolicy(null))
      .header('X-Content-Type-Options', 'nosniff')
      .header('X-Frame-Options', 'DENY')
      .header('Referrer-Policy', 'no-referrer')
      .header('Cache-Control', 'no-store')
      .header('Permissions-Policy', 'camera=(), microphone=(), geolocation=(), payment=()');
    const html = await loadPage();
    if (html === null) return reply.code(503).type('text/html; charset=utf-8').send(MISSING);
    return reply.type('text/html; charset=utf-8').send(html);
  });

  const limit = limitPerAddress(ctx, ctx.config.verifyRateLimitPerMinute, 'verify');
  // Its own scope: the raw application/pdf parser exists for this route only (http/pdf-body.ts).
  void app.register(async (scope: App) => {
    acceptPdfBodies(scope, ctx.config.maxPdfBytes);
    scope.post(
      VERIFY_PATH,
      {
        bodyLimit: ctx.config.maxPdfBytes,
        ...(limit ? { onRequest: limit } : {}),
        schema: {
          hide: true,
          body: {
            content: {
              'application/pdf': { schema: Type.Unsafe({ description: 'the PDF, as raw bytes' }) },
              'multipart/form-data': { schema: Type.Unsafe({ description: 'the PDF in a part named "file"' }) },
            },
          },
          response: { 200: PublicVerifyResponse, ...problems(413, 415, 422, 429, 503) },
        },
      },
      async (request, reply) => {
        const bytes = request.isMultipart()
          ? (await readFilePart(request)).bytes
          : Buffer.isBuffer(request.body)
            ? request.body
            : null;
        if (!bytes) {
          throw new MoharError(
            'unsupported_media_type',
            'send the PDF as application/pdf or as a multipart part "file"',
          );
        }
        reply.header('Cache-Control', 'no-store');
        return verifyPublicUpload(ctx, bytes);
      },
    );
  });
}
