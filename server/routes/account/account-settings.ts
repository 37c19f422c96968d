/** Account settings for the api_admin login: the origins allowed to embed the signing page. */
import { readSettings, writeSettings } from '../../domain/accounts/settings.js';
import type { Context } from '../../domain/context.js';
import { normalizeOrigin } from '../../domain/workflow/sessions.js';
import { accountOf, requireAdminLogin } from '../../http/auth-hooks.js';
import { problems } from '../../http/schemas/common.js';
import { AccountSettingsBody } from '../../http/schemas/signing.js';
import { LOGIN } from '../../http/schemas/security.js';
import type { App } from '../../http/app-type.js';

export function accountSettingsRoutes(app: App, ctx: Context): void {
  const onRequest = requireAdminLogin(ctx);
  app.get(
    '/account/settings/',
    {
      onRequest,
      schema: {
        operationId: 'getAccountSettings',
        tags: ['account'],
        summary: 'Account settings',
        security: LOGIN,
        response: { 200: AccountSettingsBody, ...problems(401, 403) },
      },
    },
    (request) => readSettings(ctx, accountOf(request)),
  );
  app.put(
    '/account/settings/',
    {
      onRequest,
      schema: {
        operationId: 'updateAccountSettings',
        tags: ['account'],
        summary: 'Replace the account settings',
        security: LOGIN,
        body: AccountSettingsBody,
        response: { 200: AccountSettingsBody, ...problems(401, 403, 422) },
      },
    },
    (request) => writeSettings(ctx, accountOf(request), request.body, normalizeOrigin),
  );
}
