/**
 * The browser side of Aadhaar eSign, outside the JSON API:
 *
 * - GET  /sign/aadhaar/go/{txn}: the auto-post page. A form with the signed Esign request posted to the
 *   ESP by /sign/aadhaar/autopost.js (no inline script: the page's CSP allows scripts from this server only
 *   and form posts to the ESP's origin only); without JavaScript the signer presses the button.
 * - POST /sign/aadhaar/response: the response URL. The ESP posts `eSignResponse` (EsignResp XML) from the
 *   signer's browser; domain/aadhaar/accept-response.ts checks and applies it. The signer is sent back to
 *   their signing page (303): `?aadhaar=signed`, or `?aadhaar=failed&reason=…` where the page says what went
 *   wrong, in English or Hindi, and offers to try again. A response that names no transaction of ours gets a
 *   short page of its own (there is no signing page to return to).
 */
import type { FastifyReply } from 'fastify';
import { SIGNING_PAGE_BASE } from '../../common/api-paths.js';
import { acceptEsignResponse } from '../domain/aadhaar/accept-response.js';
import { AUTOPOST_PATH, openRequestFor, RESPONSE_PATH } from '../domain/aadhaar/esign-request.js';
import { returnTargetAfterEsign } from '../domain/aadhaar/return-target.js';
import type { Context } from '../domain/context.js';
import { settleAct } from '../domain/workflow/settle-act.js';
import { clientOf } from './v1/signer-answer.js';
import type { App } from '../http/app-type.js';

/** An EsignResp with a CMS per document and the chain is a few tens of KiB; 1 MiB is the XML parser's own cap. */
const RESPONSE_BODY_LIMIT = 2 * 1024 * 1024;
const TXN = /^MOHAR-[0-9a-f]{32}$/;

const AUTOPOST_JS = "document.getElementById('esign').submit();\n";

function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

function pageHeaders(reply: FastifyReply, formAction: string): FastifyReply {
  return reply
    .header(
      'Content-Security-Policy',
      [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'unsafe-inline'",
        "base-uri 'none'",
        `form-action ${formAction}`,
        "frame-ancestors 'none'",
      ].join('; '),
    )
    .header('X-Content-Type-Options', 'nosniff')
    .header('X-Frame-Options', 'DENY')
    .header('Referrer-Policy', 'no-referrer')
    .header('Cache-Control', 'no-store')
    .type('text/html; charset=utf-8');
}

const STYLE = 'font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem';

function simplePage(title: string, english: string, hindi: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title></head>
<body style="${STYLE}"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(english)}</p><p lang="hi">${escapeHtml(hindi)}</p></body></html>`;
}

export function aadhaarPageRoutes(app: App, ctx: Context): void {
  app.get('/sign/aadhaar/autopost.js', { schema: { hide: true } }, (_request, reply) =>
    reply
      .type('text/javascript; charset=utf-8')
      .header('Cache-Control', 'no-store')
      .header('X-Content-Type-Options', 'nosniff')
      .send(AUTOPOST_JS),
  );

  app.get<{ Params: { txn: string } }>(`${AUTOPOST_PATH}/:txn`, { schema: { hide: true } }, async (request, reply) => {
    const request_ = TXN.test(request.params.txn) ? await openRequestFor(ctx, request.params.txn) : null;
    if (!request_) {
      return pageHeaders(reply, "'none'")
        .code(410)
        .send(
          simplePage(
            'Aadhaar eSign',
            'This eSign attempt is over (answered, replaced by a newer one, or older than 30 minutes). Go back to your signing page and start again.',
            'यह ई-साइन प्रयास समाप्त हो चुका है। अपने हस्ताक्षर पृष्ठ पर लौटें और फिर से शुरू करें।',
          ),
        );
    }
    const { esp_url: espUrl, form } = request_;
    const inputs = Object.entries(form)
      .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
      .join('\n');
    const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Aadhaar eSign</title><script src="/sign/aadhaar/autopost.js" defer></script></head>
<body style="${STYLE}"><form id="esign" method="post" action="${escapeHtml(espUrl)}" accept-charset="UTF-8">
${inputs}
<p>Taking you to the eSign service provider to sign with Aadhaar…</p><p lang="hi">आधार से हस्ताक्षर के लिए आपको ई-साइन सेवा प्रदाता के पास ले जाया जा रहा है…</p>
<button type="submit">Continue / आगे बढ़ें</button></form></body></html>`;
    return pageHeaders(reply, new URL(espUrl).origin).send(html);
  });

  void app.register(async (scope: App) => {
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: RESPONSE_BODY_LIMIT },
      (_request, body, done) => {
        done(null, Object.fromEntries(new URLSearchParams(String(body))));
      },
    );
    scope.post<{ Body: Record<string, string> }>(
      RESPONSE_PATH,
      { bodyLimit: RESPONSE_BODY_LIMIT, schema: { hide: true } },
      async (request, reply) => {
        const xml = typeof request.body === 'object' && request.body !== null ? request.body.eSignResponse : undefined;
        if (typeof xml !== 'string' || xml === '') {
          return pageHeaders(reply, "'none'")
            .code(400)
            .send(
              simplePage(
                'Aadhaar eSign',
                'The eSign service provider sent no response. Go back to your signing page and try again.',
                'ई-साइन सेवा प्रदाता से कोई उत्तर नहीं मिला। अपने हस्ताक्षर पृष्ठ पर लौटें और फिर से प्रयास करें।',
              ),
            );
        }
        const outcome = await acceptEsignResponse(ctx, xml, clientOf(request));
        if (outcome.ok) {
          const envelope = await settleAct(ctx, outcome.envelopeId, {
            status: 'signed',
            envelopeFinished: outcome.envelopeFinished,
          });
          // Where the signer goes after an act, as for the other methods: the link's return_url or the envelope's
          // redirect_url, else the done page.
          const next =
            (await returnTargetAfterEsign(ctx, outcome.txn, envelope.redirectUrl)) ??
            `${SIGNING_PAGE_BASE}/${outcome.token}?aadhaar=signed`;
          return reply
            .code(303)
            .header('Cache-Control', 'no-store')
            .header('Referrer-Policy', 'no-referrer')
            .redirect(next, 303);
        }
        request.log.warn(
          { txn: outcome.txn, code: outcome.code, reason: outcome.reason, espCode: outcome.espCode },
          'Aadhaar eSign response refused',
        );
        if (outcome.token) {
          const query = new URLSearchParams({
            aadhaar: 'failed',
            reason: outcome.reason,
            ...(outcome.espCode ? { esp_code: outcome.espCode } : {}),
          });
          return reply
            .code(303)
            .header('Cache-Control', 'no-store')
            .header('Referrer-Policy', 'no-referrer')
            .redirect(`${SIGNING_PAGE_BASE}/${outcome.token}?${query.toString()}`, 303);
        }
        return pageHeaders(reply, "'none'")
          .code(422)
          .send(
            simplePage(
              'Aadhaar eSign',
              'This eSign response could not be accepted: it is not from the configured eSign service provider, or it names no signing of this server. Nothing was signed. Go back to your signing page and try again.',
              'यह ई-साइन उत्तर स्वीकार नहीं किया जा सका; कुछ भी हस्ताक्षरित नहीं हुआ। अपने हस्ताक्षर पृष्ठ पर लौटें और फिर से प्रयास करें।',
            ),
          );
      },
    );
  });
}
