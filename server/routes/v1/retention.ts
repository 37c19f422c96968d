/**
 * Retention (issue 29, point 6): the account's policy ({api_base}/account/retention) and an envelope's legal hold
 * ({api_base}/envelopes/{id}/legal-hold). The API key, or an admin login (the console): senders cannot.
 */
import type { FastifyRequest } from 'fastify';
import type { Context } from '../../domain/context.js';
import { placeLegalHold, releaseLegalHold, type HoldActor } from '../../domain/retention/legal-hold.js';
import { readRetentionPolicy, writeRetentionPolicy } from '../../domain/retention/policy.js';
import { accountOf, forCaller, requireKeyOrLogin } from '../../http/auth-hooks.js';
import { problems } from '../../http/schemas/common.js';
import { EnvelopeParams, EnvelopeResponse, LegalHoldBody } from '../../http/schemas/envelopes.js';
import { RetentionPolicyBody } from '../../http/schemas/retention.js';
import { API_KEY_OR_LOGIN } from '../../http/schemas/security.js';
import type { App } from '../../http/app-type.js';

function actorOf(request: FastifyRequest): HoldActor {
  return request.user
    ? { type: 'user', id: request.user.userId }
    : { type: 'api_key', id: request.apiKey?.keyId ?? null };
}

export function retentionRoutes(app: App, ctx: Context): void {
  const onRequest = requireKeyOrLogin(ctx);
  app.get(
    '/account/retention',
    {
      onRequest,
      schema: {
        operationId: 'getRetentionPolicy',
        tags: ['account'],
        summary: "The account's retention policy (retention_days null: documents are kept)",
        security: API_KEY_OR_LOGIN,
        response: { 200: RetentionPolicyBody, ...problems(401, 403) },
      },
    },
    (request) => readRetentionPolicy(forCaller(ctx, request), accountOf(request)),
  );
  app.put(
    '/account/retention',
    {
      onRequest,
      schema: {
        operationId: 'setRetentionPolicy',
        tags: ['account'],
        summary:
          "Set the account's retention policy: delete finished envelopes' documents N days after they finished; the API key or an admin login",
        security: API_KEY_OR_LOGIN,
        body: RetentionPolicyBody,
        response: { 200: RetentionPolicyBody, ...problems(401, 403, 422) },
      },
    },
    (request) =>
      writeRetentionPolicy(forCaller(ctx, request), accountOf(request), request.body, {
        userId: request.user?.userId ?? null,
        email: request.user?.email ?? null,
        ip: request.ip,
      }),
  );
  app.put(
    '/envelopes/:id/legal-hold',
    {
      onRequest,
      schema: {
        operationId: 'placeLegalHold',
        tags: ['envelopes'],
        summary:
          'Place (or re-word) a legal hold: the retention policy never deletes the documents while it is set; the API key or an admin login',
        security: API_KEY_OR_LOGIN,
        params: EnvelopeParams,
        body: LegalHoldBody,
        response: { 200: EnvelopeResponse, ...problems(401, 403, 404, 410, 422) },
      },
    },
    (request) =>
      placeLegalHold(
        forCaller(ctx, request),
        accountOf(request),
        request.params.id,
        actorOf(request),
        request.body.reason,
      ),
  );
  app.delete(
    '/envelopes/:id/legal-hold',
    {
      onRequest,
      schema: {
        operationId: 'releaseLegalHold',
        tags: ['envelopes'],
        summary: 'Release the legal hold (idempotent): the retention policy applies again',
        security: API_KEY_OR_LOGIN,
        params: EnvelopeParams,
        response: { 200: EnvelopeResponse, ...problems(401, 403, 404) },
      },
    },
    (request) => releaseLegalHold(forCaller(ctx, request), accountOf(request), request.params.id, actorOf(request)),
  );
}
