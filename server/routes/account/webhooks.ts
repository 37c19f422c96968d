/**
 * Webhook registration (the interface's POST /webhook/save/) and the developer-portal API around it:
 * the endpoint, its secret (reveal, rotate), a test event, the deliveries and their attempt log,
 * redelivery. All with the api_admin login (Bearer). See docs/webhooks.md.
 */
import type { Context } from '../../domain/context.js';
import { jsonWithHeaders } from '../../http/schemas/responses.js';
import { accountOf, requireAdminLogin } from '../../http/auth-hooks.js';
import { BearerHeader } from '../../http/schemas/auth.js';
import { problems } from '../../http/schemas/common.js';
import {
  AttemptsQuery,
  AttemptsResponse,
  DeliveriesQuery,
  DeliveriesResponse,
  DeliveryDetailResponse,
  DeliveryItem,
  DeliveryParams,
  RotateSecretBody,
  TestEventResponse,
  WebhookEndpointResponse,
  WebhookPolicyResponse,
  WebhookSaveBody,
  WebhookSaveResponse,
  WebhookSecretResponse,
} from '../../http/schemas/webhooks.js';
import { getDelivery } from '../../domain/webhooks/get-delivery.js';
import { listAttempts } from '../../domain/webhooks/list-attempts.js';
import { listDeliveries } from '../../domain/webhooks/list-deliveries.js';
import { redeliver } from '../../domain/webhooks/redeliver.js';
import { registerWebhook } from '../../domain/webhooks/register-endpoint.js';
import { getWebhook, revealWebhookSecret } from '../../domain/webhooks/reveal-secret.js';
import { rotateWebhookSecret } from '../../domain/webhooks/rotate-secret.js';
import { sendTestEvent } from '../../domain/webhooks/send-test-event.js';
import { webhookUrlPolicy } from '../../domain/webhooks/url-policy.js';
import { LOGIN } from '../../http/schemas/security.js';
import type { App } from '../../http/app-type.js';

const tags = ['webhooks'];

export function webhookRoutes(app: App, ctx: Context): void {
  const onRequest = requireAdminLogin(ctx);

  app.post(
    '/webhook/save/',
    {
      onRequest,
      schema: {
        operationId: 'saveWebhook',
        tags,
        security: LOGIN,
        summary: "Register (or change) the account's webhook receiver; returns its signing secret once",
        description:
          'https and a public address only: the host is resolved and loopback, private, link-local, CGNAT, multicast and metadata addresses are refused (422 invalid_webhook_url, saying why). Saving again changes the URL, enables a disabled webhook and issues a new secret; the old secret keeps signing alongside it for the rotation overlap.',
        headers: BearerHeader,
        body: WebhookSaveBody,
        response: {
          200: jsonWithHeaders(WebhookSaveResponse, ['Cache-Control'], 'the webhook and its new secret'),
          ...problems(401, 403, 422),
        },
      },
    },
    // no-store on the answer that carries the secret, not on a refusal (which the documents list without it).
    async (request, reply) => {
      const saved = await registerWebhook(ctx, accountOf(request), request.body.webhook_url);
      reply.header('cache-control', 'no-store');
      return saved;
    },
  );

  app.get(
    '/webhook/',
    {
      onRequest,
      schema: {
        operationId: 'getWebhook',
        tags,
        security: LOGIN,
        summary: "The account's webhook: URL, status (and why it was disabled), rotation state; never the secret",
        headers: BearerHeader,
        response: { 200: WebhookEndpointResponse, ...problems(401, 403, 404) },
      },
    },
    (request) => getWebhook(ctx, accountOf(request)),
  );

  app.get(
    '/webhook/policy/',
    {
      onRequest,
      schema: {
        operationId: 'getWebhookPolicy',
        tags,
        security: LOGIN,
        summary:
          "Which receiver URLs this server accepts (its MOHAR_WEBHOOK_ALLOW_PRIVATE setting), for the portal's hint",
        headers: BearerHeader,
        response: { 200: WebhookPolicyResponse, ...problems(401, 403) },
      },
    },
    () => webhookUrlPolicy(ctx),
  );

  app.get(
    '/webhook/secret/',
    {
      onRequest,
      schema: {
        operationId: 'getWebhookSecret',
        tags,
        security: LOGIN,
        summary: 'Reveal the current signing secret',
        headers: BearerHeader,
        response: {
          200: jsonWithHeaders(WebhookSecretResponse, ['Cache-Control'], 'the signing secret'),
          ...problems(401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const secret = await revealWebhookSecret(ctx, accountOf(request));
      reply.header('cache-control', 'no-store');
      return secret;
    },
  );

  app.post(
    '/webhook/secret/rotate/',
    {
      onRequest,
      // The body is optional: no body means the configured overlap.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        operationId: 'rotateWebhookSecret',
        tags,
        security: LOGIN,
        summary:
          'Rotate the signing secret: the new one signs at once, the old one alongside it until the overlap ends (default 24 h)',
        headers: BearerHeader,
        body: RotateSecretBody,
        response: {
          200: jsonWithHeaders(WebhookSecretResponse, ['Cache-Control'], 'the new signing secret'),
          ...problems(401, 403, 404, 422),
        },
      },
    },
    async (request, reply) => {
      const rotated = await rotateWebhookSecret(
        ctx,
        accountOf(request),
        request.body.overlap_hours === undefined ? {} : { overlapHours: request.body.overlap_hours },
      );
      reply.header('cache-control', 'no-store');
      return rotated;
    },
  );

  app.post(
    '/webhook/test/',
    {
      onRequest,
      schema: {
        operationId: 'sendTestWebhook',
        tags,
        security: LOGIN,
        summary: 'Send a webhook.test event to the webhook (delivered and logged like a real event)',
        headers: BearerHeader,
        response: { 202: TestEventResponse, ...problems(401, 403, 404, 409) },
      },
    },
    async (request, reply) => reply.code(202).send(await sendTestEvent(ctx, accountOf(request))),
  );

  app.get(
    '/webhook/deliveries/',
    {
      onRequest,
      schema: {
        operationId: 'listWebhookDeliveries',
        tags,
        security: LOGIN,
        summary: 'Deliveries (one per event and endpoint), newest first; status=dead lists the dead letters',
        headers: BearerHeader,
        querystring: DeliveriesQuery,
        response: { 200: DeliveriesResponse, ...problems(401, 403, 422) },
      },
    },
    (request) => {
      const q = request.query;
      return listDeliveries(ctx, accountOf(request), {
        limit: q.limit ?? 50,
        ...(q.event_type !== undefined ? { eventType: q.event_type } : {}),
        ...(q.status !== undefined ? { status: q.status } : {}),
        ...(q.success !== undefined ? { success: q.success } : {}),
        ...(q.before !== undefined ? { before: q.before } : {}),
      });
    },
  );

  app.get(
    '/webhook/deliveries/:delivery_id/',
    {
      onRequest,
      schema: {
        operationId: 'getWebhookDelivery',
        tags,
        security: LOGIN,
        summary: 'One delivery with its payload and every attempt',
        headers: BearerHeader,
        params: DeliveryParams,
        response: { 200: DeliveryDetailResponse, ...problems(401, 403, 404, 422) },
      },
    },
    (request) => getDelivery(ctx, accountOf(request), request.params.delivery_id),
  );

  app.post(
    '/webhook/deliveries/:delivery_id/redeliver/',
    {
      onRequest,
      schema: {
        operationId: 'redeliverWebhook',
        tags,
        security: LOGIN,
        summary: 'Deliver the event again now (same event id and body, fresh timestamp and signature)',
        headers: BearerHeader,
        params: DeliveryParams,
        response: { 202: DeliveryItem, ...problems(401, 403, 404, 409, 422) },
      },
    },
    async (request, reply) =>
      reply.code(202).send(await redeliver(ctx, accountOf(request), request.params.delivery_id)),
  );

  app.get(
    '/webhook/attempts/',
    {
      onRequest,
      schema: {
        operationId: 'listWebhookAttempts',
        tags,
        security: LOGIN,
        summary:
          'The delivery log: every attempt (event, URL, attempt number, status code, success, duration, error), newest first',
        headers: BearerHeader,
        querystring: AttemptsQuery,
        response: { 200: AttemptsResponse, ...problems(401, 403, 422) },
      },
    },
    (request) => {
      const q = request.query;
      return listAttempts(ctx, accountOf(request), {
        limit: q.limit ?? 50,
        ...(q.event_type !== undefined ? { eventType: q.event_type } : {}),
        ...(q.success !== undefined ? { success: q.success } : {}),
        ...(q.delivery_id !== undefined ? { deliveryId: q.delivery_id } : {}),
        ...(q.event_id !== undefined ? { eventId: q.event_id } : {}),
        ...(q.before !== undefined ? { before: q.before } : {}),
      });
    },
  );
}
