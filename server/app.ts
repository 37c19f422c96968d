/**
 * Builds the Fastify application: problem+json errors, two API scopes with their OpenAPI
 * documents, and the routes. Nothing here opens databases or reads settings: see server/start.ts.
 */
import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify from 'fastify';
import { API_BASE, LEGACY_BASE } from '../common/api-paths.js';
import type { Context } from './domain/context.js';
import { registerOpenApi } from './http/openapi.js';
import { trackHandlers, type InFlight } from './http/in-flight.js';
import { installProblemHandlers } from './http/problem.js';
import { apiKeyRoutes } from './routes/account/api-keys.js';
import { authRoutes } from './routes/account/auth.js';
import { healthRoutes } from './routes/health.js';
import type { ServerState } from './domain/health/readiness.js';
import { registerQueueCollectors } from './metrics/collectors.js';
import { installRequestTiming, metricsRoute } from './metrics/http.js';
import { countedBlobStore, timedPdfInspector } from './metrics/instrument.js';
import { createMetrics, type Metrics } from './metrics/registry.js';
import { consolePageRoutes } from './routes/console-page.js';
import { consoleSessionRoutes } from './routes/account/console-session.js';
import { verifyPageRoutes } from './routes/verify-page.js';
import { signingPageRoutes } from './routes/signing-page.js';
import { aadhaarSignerRoutes } from './routes/v1/aadhaar.js';
import { aadhaarPageRoutes } from './routes/aadhaar-pages.js';
import type { App } from './http/app-type.js';
import { documentRoutes } from './routes/v1/documents.js';
import { envelopeRoutes } from './routes/v1/envelopes.js';
import { workflowRoutes } from './routes/v1/workflow.js';
import { signingSessionRoutes } from './routes/v1/signing-sessions.js';
import { sandboxRoutes } from './routes/v1/sandbox.js';
import { sandboxEspRoutes } from './routes/sandbox-esp.js';
import { templateRoutes } from './routes/v1/templates.js';
import { bulkSendRoutes } from './routes/v1/bulk-sends.js';
import { recipientLinkRoutes } from './routes/v1/recipient-links.js';
import { accountReminderRoutes } from './routes/v1/account-reminders.js';
import { retentionRoutes } from './routes/v1/retention.js';
import { signerRoutes } from './routes/v1/signer.js';
import { accountSettingsRoutes } from './routes/account/account-settings.js';
import { jobRoutes } from './routes/account/jobs.js';
import { mailRoutes } from './routes/account/mail.js';
import { mailSettingsRoutes } from './routes/account/mail-settings.js';
import { webhookRoutes } from './routes/account/webhooks.js';
import { webhookOpenApi } from './http/schemas/webhooks.js';
import { legacyDocumentRoutes } from './routes/legacy/documents.js';
import { usageRoutes } from './routes/account/usage.js';
import { userRoutes } from './routes/account/users.js';
import { usageDailyRoutes } from './routes/account/usage-daily.js';
import { operatorRoutes } from './routes/account/operators.js';
import { installRateLimit } from './http/rate-limit.js';
import { installTokenRouteLimits } from './http/token-limits.js';
import { AJV_CUSTOM_OPTIONS, partAwareValidator } from './http/validators.js';
import { logSerializers, redactLogArguments, redactLogObject } from './http/log-redaction.js';
import { VERSION } from './version.js';

export { VERSION };

/** Secrets that must never reach a log line. */
export const REDACTED_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  '*.password',
  '*.pin',
  '*.api_key',
  '*.access_token',
  '*.refresh_token',
  '*.webhook_secret',
];

export interface AppOptions {
  /** A pino destination for tests; default stdout. */
  readonly logStream?: NodeJS.WritableStream;
}

export interface BuiltApp {
  readonly app: App;
  /** Handlers still running; wait for them before closing storage. */
  readonly inFlight: InFlight;
  /** Shutdown sets `draining`, and /readyz answers 503 from then on. */
  readonly state: ServerState;
  /** The Context the routes use: the given one with the app's logger, and counting ports when metrics are on. */
  readonly ctx: Context;
  /** This instance's metrics (MOHAR_METRICS=on), for the workers and a separate listener. */
  readonly metrics: Metrics | undefined;
}

export async function buildApp(ctx: Context, options: AppOptions = {}): Promise<App> {
  return (await buildServerApp(ctx, options)).app;
}

/** The app and its in-flight handler count (shutdown waits on it after app.close()). */
export async function buildServerApp(base: Context, options: AppOptions = {}): Promise<BuiltApp> {
  // One registry per app: tests run several servers in one process (metrics/registry.ts).
  const metrics = base.config.metrics.enabled ? createMetrics() : undefined;
  const ported: Context = metrics
    ? { ...base, blobs: countedBlobStore(base.blobs, metrics), pdf: timedPdfInspector(base.pdf, metrics) }
    : base;
  const state: ServerState = { draining: false };
  const app = Fastify({
    logger: {
      level: base.config.logLevel,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      // Link credentials in URLs, messages and errors (signing tokens, ?token=): http/log-redaction.ts.
      serializers: logSerializers,
      formatters: { log: redactLogObject },
      hooks: { logMethod: redactLogArguments },
      ...(options.logStream ? { stream: options.logStream } : {}),
    },
    bodyLimit: 2 * 1024 * 1024,
    // JSON bodies are validated without type coercion; query strings, params and headers with it (http/validators.ts).
    schemaController: { compilersFactory: { buildValidator: partAwareValidator() } },
    ajv: { customOptions: AJV_CUSTOM_OPTIONS },
    return503OnClosing: true,
    // request.ip (audit rows, rate limits, login throttling): the forwarded client only behind a trusted proxy.
    trustProxy: typeof base.config.trustProxy === 'boolean' ? base.config.trustProxy : [...base.config.trustProxy],
  }).withTypeProvider<TypeBoxTypeProvider>();
  // The domain logs through the app's logger, so its lines get the same redaction as the requests' (REDACTED_PATHS).
  const ctx: Context = { ...ported, log: app.log };

  const inFlight = trackHandlers(app);
  // While shutting down, every answer closes its connection: a kept-alive connection left idle would hold
  // the HTTP server's close() open until the deadline (shutdown.ts).
  app.addHook('onSend', async (_request, reply, payload) => {
    if (state.draining) reply.header('connection', 'close');
    return payload;
  });
  if (metrics) {
    installRequestTiming(app, metrics);
    registerQueueCollectors(metrics, ctx);
    // With MOHAR_METRICS_LISTEN the scrape endpoint is on its own listener instead (start.ts).
    if (!ctx.config.metrics.listen) metricsRoute(app, metrics, ctx.config.metrics);
  }
  app.decorateRequest('apiKey', null);
  app.decorateRequest('user', null);
  installProblemHandlers(app);
  // Fastify parses text/plain by default, so a JSON body sent as text/plain reached the validator as a string (422);
  // no route takes plain text: answer it 415 unsupported_media_type, like any other type a route does not take.
  app.removeContentTypeParser('text/plain');
  // The per-key burst limit, for both API scopes (after the routes' authentication, before body parsing).
  installRateLimit(app, ctx);
  // Multipart bodies are streamed by the handlers; give the schema an object to check so routes can document the parts.
  app.addHook('preValidation', async (request) => {
    if (request.body === undefined && request.isMultipart()) request.body = {};
  });
  // Signing-link routes: small bodies unless a route says otherwise, and a rate limit per link and per address.
  // (Raw application/pdf bodies are accepted only where a route scope asks for them: http/pdf-body.ts.)
  installTokenRouteLimits(app, ctx);
  await app.register(multipart, { limits: { fileSize: ctx.config.maxPdfBytes, files: 1, fields: 20, parts: 25 } });

  await app.register(
    async (v1: App) => {
      await registerOpenApi(v1, {
        title: 'Mohar envelope API v1',
        description:
          'Envelopes, documents, fields and recipients. Authenticate with the X-Api-Key header. Errors are application/problem+json; see docs/errors.md.',
        serverUrl: `${ctx.config.baseUrl}${API_BASE}`,
        version: VERSION,
        webhooks: webhookOpenApi(),
      });
      envelopeRoutes(v1, ctx);
      workflowRoutes(v1, ctx);
      signingSessionRoutes(v1, ctx);
      signerRoutes(v1, ctx);
      aadhaarSignerRoutes(v1, ctx);
      documentRoutes(v1, ctx);
      sandboxRoutes(v1, ctx);
      templateRoutes(v1, ctx);
      bulkSendRoutes(v1, ctx);
      recipientLinkRoutes(v1, ctx);
      accountReminderRoutes(v1, ctx);
      retentionRoutes(v1, ctx);
    },
    { prefix: API_BASE },
  );

  await app.register(
    async (legacy: App) => {
      await registerOpenApi(legacy, {
        title: 'Mohar legacy API',
        description: 'Account management (login, API keys) and the document-id based calls. Paths end in a slash.',
        serverUrl: `${ctx.config.baseUrl}${LEGACY_BASE}`,
        version: VERSION,
        webhooks: webhookOpenApi(),
      });
      authRoutes(legacy, ctx);
      await consoleSessionRoutes(legacy, ctx, LEGACY_BASE);
      apiKeyRoutes(legacy, ctx);
      accountSettingsRoutes(legacy, ctx);
      mailRoutes(legacy, ctx);
      mailSettingsRoutes(legacy, ctx);
      jobRoutes(legacy, ctx);
      webhookRoutes(legacy, ctx);
      legacyDocumentRoutes(legacy, ctx, LEGACY_BASE);
      usageRoutes(legacy, ctx);
      userRoutes(legacy, ctx, LEGACY_BASE);
      usageDailyRoutes(legacy, ctx);
      operatorRoutes(legacy, ctx);
    },
    { prefix: LEGACY_BASE },
  );

  healthRoutes(app, ctx, state);
  consolePageRoutes(app);
  aadhaarPageRoutes(app, ctx);
  sandboxEspRoutes(app, ctx);
  signingPageRoutes(app, ctx);
  verifyPageRoutes(app, ctx);
  return { app, inFlight, state, ctx, metrics };
}
