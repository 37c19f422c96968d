/**
 * Aadhaar eSign in the signer API ({api_base}/signing/{token}/aadhaar…): start a transaction (the prepared
 * revision and the signed Esign request the browser posts to the ESP), and recover a lost answer with an
 * EsignStatus query. The ESP's answer itself arrives at the response URL, a page route (routes/aadhaar-pages.ts).
 */
import type { Context } from '../../domain/context.js';
import { startEsign } from '../../domain/aadhaar/start-esign.js';
import { recoverEsignStatus } from '../../domain/aadhaar/recover-status.js';
import { resolveSession } from '../../domain/workflow/sessions.js';
import { settleAct } from '../../domain/workflow/settle-act.js';
import { problems } from '../../http/schemas/common.js';
import { EsignStartBody, EsignStartResponse, EsignStatusResponse } from '../../http/schemas/aadhaar.js';
import { TokenParams } from '../../http/schemas/signing.js';
import { PUBLIC } from '../../http/schemas/security.js';
import type { App } from '../../http/app-type.js';
import { clientOf } from './signer-answer.js';

export function aadhaarSignerRoutes(app: App, ctx: Context): void {
  app.post(
    '/signing/:token/aadhaar',
    {
      schema: {
        operationId: 'startAadhaarSigning',
        security: PUBLIC,
        tags: ['signer'],
        summary: 'Aadhaar eSign: prepare your signature and get the request to post to the eSign service provider',
        description:
          "Appends (but does not yet store as the document) one revision per document with your values and an empty signature, starts an eSign transaction (30 minutes, used once) and returns the Esign 2.1 request signed by this server's ASP key. Post `form` from the signer's browser to `esp_url`, or open `autopost_url`, which does it. The ESP posts its answer to this server's response URL, which records the signature and sends the signer back to the signing page. 422 codes: `aadhaar_not_configured`, `consent_required`, `action_not_allowed` (not an Aadhaar signer), field value codes as for signing. See docs/aadhaar.md.",
        params: TokenParams,
        body: EsignStartBody,
        response: { 200: EsignStartResponse, ...problems(409, 410, 422, 503) },
      },
    },
    async (request) =>
      startEsign(ctx, await resolveSession(ctx, request.params.token), request.params.token, request.body),
  );

  app.post(
    '/signing/:token/aadhaar/status',
    {
      schema: {
        operationId: 'checkAadhaarSigning',
        security: PUBLIC,
        tags: ['signer'],
        summary:
          "Aadhaar eSign: recover the answer of your last transaction (EsignStatus), e.g. after the ESP's post was lost",
        params: TokenParams,
        response: { 200: EsignStatusResponse, ...problems(410, 422, 503) },
      },
    },
    async (request) => {
      const session = await resolveSession(ctx, request.params.token);
      const recovered = await recoverEsignStatus(ctx, session, clientOf(request, session));
      if (recovered.state !== 'answered') {
        return { state: recovered.state, recipient_status: null, envelope_status: null, failure: null };
      }
      const outcome = recovered.outcome;
      if (!outcome.ok) {
        return {
          state: 'failed' as const,
          recipient_status: null,
          envelope_status: null,
          failure: { reason: outcome.reason, code: outcome.code, esp_code: outcome.espCode, message: outcome.message },
        };
      }
      const envelope = await settleAct(ctx, outcome.envelopeId, {
        status: 'signed',
        envelopeFinished: outcome.envelopeFinished,
      });
      return { state: 'signed' as const, recipient_status: 'signed', envelope_status: envelope.status, failure: null };
    },
  );
}
