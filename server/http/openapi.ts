/**
 * One OpenAPI 3.1 document per API surface, generated from the route schemas of that scope:
 * {api_base}/openapi.json and {legacy_base}/openapi.json, each with a browsable page at …/docs.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { App } from './app-type.js';
import { documentResponses } from './openapi-responses.js';

export interface OpenApiScope {
  readonly title: string;
  readonly description: string;
  readonly serverUrl: string;
  readonly version: string;
  /** OpenAPI 3.1 `webhooks`: the requests Mohar sends to the integrator's receiver. */
  readonly webhooks?: Record<string, unknown>;
}

export async function registerOpenApi(app: App, scope: OpenApiScope): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: scope.title,
        description: scope.description,
        version: scope.version,
        license: { name: 'AGPL-3.0-or-later', identifier: 'AGPL-3.0-or-later' },
      },
      servers: [{ url: scope.serverUrl }],
      ...(scope.webhooks ? { webhooks: scope.webhooks } : {}),
      components: {
        securitySchemes: {
          apiKey: {
            type: 'apiKey',
            in: 'header',
            name: 'X-Api-Key',
            description: 'account API key (qsk_live_… / qsk_test_…); keep it on your server',
          },
          bearer: {
            type: 'http',
            scheme: 'bearer',
            description: 'access token of a login (POST {legacy_base}/auth/login/); roles in docs/users.md',
          },
        },
      },
    },
    // Paths in the document are relative to the scope's server URL.
    transform: ({ schema, url }) => ({
      schema,
      url: url.startsWith(prefixOf(scope.serverUrl)) ? url.slice(prefixOf(scope.serverUrl).length) || '/' : url,
    }),
    // Problems, rate limits, body parsing and idempotency: documented once for every operation.
    transformObject: (generated) =>
      documentResponses('openapiObject' in generated ? generated.openapiObject : generated.swaggerObject),
  });
  // indexPrefix: the page's asset links are absolute when it is opened without a trailing slash, and the
  // plugin knows only its own prefix (/docs), not the scope's (/backend/api/v1).
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    indexPrefix: app.prefix,
    uiConfig: { deepLinking: true, tryItOutEnabled: true },
  });
  app.get('/openapi.json', { schema: { hide: true } }, () => app.swagger());
}

function prefixOf(serverUrl: string): string {
  return new URL(serverUrl).pathname.replace(/\/$/, '');
}
