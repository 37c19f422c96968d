/** Ending a recipient's signing links (issue 16, point 11; docs/workflow.md, "Signing links"). */
import { Type } from 'typebox';
import type { Context } from '../../domain/context.js';
import { revokeRecipientLinks } from '../../domain/workflow/revoke-links.js';
import { accountOf, forCaller, requireApiKey } from '../../http/auth-hooks.js';
import { problems, Uuid } from '../../http/schemas/common.js';
import { EnvelopeRecipientParams } from '../../http/schemas/envelope-edits.js';
import { API_KEY_OR_LOGIN } from '../../http/schemas/security.js';
import type { App } from '../../http/app-type.js';

export const RevokeLinksResponse = Type.Object({
  envelope_id: Uuid,
  recipient_id: Uuid,
  revoked: Type.Integer({ minimum: 0, description: 'how many live links were ended (0 when there were none)' }),
});

export function recipientLinkRoutes(app: App, ctx: Context): void {
  app.post(
    '/envelopes/:id/recipients/:recipient_id/revoke-links',
    {
      onRequest: requireApiKey(ctx),
      schema: {
        operationId: 'revokeRecipientLinks',
        tags: ['envelopes'],
        summary:
          'End every live signing link of a recipient (mail, legacy, signing sessions); audited. Opening one answers 410 signing_link_revoked',
        security: API_KEY_OR_LOGIN,
        params: EnvelopeRecipientParams,
        response: { 200: RevokeLinksResponse, ...problems(401, 404, 409) },
      },
    },
    (request) => {
      const by = request.user
        ? { type: 'user' as const, id: request.user.userId }
        : { type: 'api_key' as const, id: request.apiKey?.keyId ?? null };
      return revokeRecipientLinks(
        forCaller(ctx, request),
        accountOf(request),
        request.params.id,
        request.params.recipient_id,
        by,
      );
    },
  );
}
