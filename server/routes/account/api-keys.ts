/** Account API keys: generate (rotate) with the login token; read metadata, never the key. */
import type { Context } from '../../domain/context.js';
import { generateApiKey, keyMetadata, listActiveKeys } from '../../domain/keys/api-keys.js';
import { accountOf, requireAdminLogin, requireKeyOrLogin } from '../../http/auth-hooks.js';
import { problems } from '../../http/schemas/common.js';
import { BearerHeader, GenerateKeyBody, GeneratedKeyResponse, KeyMetadataResponse } from '../../http/schemas/auth.js';
import { API_KEY_OR_LOGIN, LOGIN } from '../../http/schemas/security.js';
import type { App } from '../../http/app-type.js';

export function apiKeyRoutes(app: App, ctx: Context): void {
  app.post(
    '/apikey/generate/',
    {
      onRequest: requireAdminLogin(ctx),
      // The body is optional: no body means { mode: "live" }.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        operationId: 'generateApiKey',
        tags: ['keys'],
        summary: 'Generate or rotate the account key of a mode (the old key stops working at once)',
        security: LOGIN,
        headers: BearerHeader,
        body: GenerateKeyBody,
        response: { 201: GeneratedKeyResponse, ...problems(401, 403, 422) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await generateApiKey(ctx, accountOf(request), request.body.mode ?? 'live')),
  );

  app.get(
    '/apikey/get/',
    {
      onRequest: requireKeyOrLogin(ctx),
      schema: {
        operationId: 'getApiKeys',
        tags: ['keys'],
        summary: 'Key metadata: prefix, mode, created_at, last_used_at; never the full key',
        security: API_KEY_OR_LOGIN,
        headers: BearerHeader,
        response: { 200: KeyMetadataResponse, ...problems(401, 403) },
      },
    },
    async (request) => {
      if (request.apiKey) {
        const key = await keyMetadata(ctx, request.apiKey.keyId);
        return { api_key_prefix: key.api_key_prefix, keys: [key] };
      }
      const keys = await listActiveKeys(ctx, accountOf(request));
      const preferred = keys.find((k) => k.mode === 'live') ?? keys[0];
      return { api_key_prefix: preferred?.api_key_prefix ?? null, keys };
    },
  );
}
