/**
 * The ESP simulator built into the server for test data (domain/aadhaar/answer-sandbox-esp.ts), on this server's own
 * origin so the signer's browser reaches it wherever it reaches Mohar (behind a proxy too):
 *
 *   POST /sandbox/esp/esign/2.1/signdoc        the Esign form post of a test envelope's signer → consent + OTP page
 * POST /sandbox/esp/esign/2.1/authenticate   → the page that auto-posts the signed EsignResp to /sign/aadhaar/response
 *   POST /sandbox/esp/esign/2.1/status         EsignStatus (XML)
 *   GET  /sandbox/esp/esign/2.1/esp.css, autopost.js
 *
 * Pages, not the JSON API (hidden from OpenAPI). Not mounted when MOHAR_ESIGN_SANDBOX=0. It accepts
 * requests signed by the sandbox ASP key only, which signs nothing but test envelopes' requests.
 */
import type { FastifyReply } from 'fastify';
import { SANDBOX_ESP_PATH } from '../../common/api-paths.js';
import { answerSandboxEsp } from '../domain/aadhaar/answer-sandbox-esp.js';
import type { Context } from '../domain/context.js';
import type { App } from '../http/app-type.js';

/** An Esign request with a few InputHashes is a few KiB; the simulator's own server allows 2 MiB. */
const BODY_LIMIT = 2 * 1024 * 1024;

export function sandboxEspRoutes(app: App, ctx: Context): void {
  if (!ctx.config.esignSandbox) return;
  void app.register(async (scope: App) => {
    // The simulator reads the raw form or XML itself.
    scope.addContentTypeParser(
      ['application/x-www-form-urlencoded', 'application/xml', 'text/xml'],
      { parseAs: 'string', bodyLimit: BODY_LIMIT },
      (_request, body, done) => done(null, String(body)),
    );
    const handler = async (
      request: { method: string; url: string; body: unknown },
      reply: FastifyReply,
    ): Promise<unknown> => {
      const answer = await answerSandboxEsp(ctx, {
        method: request.method,
        path: new URL(request.url, 'http://localhost').pathname.slice(SANDBOX_ESP_PATH.length),
        readBody: async () => (typeof request.body === 'string' ? request.body : ''),
      });
      return reply.code(answer.status).headers(answer.headers).type(answer.type).send(answer.body);
    };
    scope.get(`${SANDBOX_ESP_PATH}/esign/2.1/:file`, { schema: { hide: true } }, handler);
    scope.post(`${SANDBOX_ESP_PATH}/esign/2.1/:step`, { bodyLimit: BODY_LIMIT, schema: { hide: true } }, handler);
  });
}
