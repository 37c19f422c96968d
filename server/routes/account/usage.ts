/** GET /usage/summary/: this month's legacy create calls against the quota, and the burst limit. */
import type { Context } from '../../domain/context.js';
import { usageSummary } from '../../domain/limits/monthly-quota.js';
import { accountOf, requireKeyOrLogin } from '../../http/auth-hooks.js';
import { BearerHeader } from '../../http/schemas/auth.js';
import { problems } from '../../http/schemas/common.js';
import { UsageSummaryResponse } from '../../http/schemas/legacy.js';
import { API_KEY_OR_LOGIN } from '../../http/schemas/security.js';
import type { App } from '../../http/app-type.js';

export function usageRoutes(app: App, ctx: Context): void {
  app.get(
    '/usage/summary/',
    {
      onRequest: requireKeyOrLogin(ctx),
      schema: {
        operationId: 'getUsageSummary',
        tags: ['usage'],
        summary: 'Monthly call quota and usage of the account, and the per-key rate limit',
        security: API_KEY_OR_LOGIN,
        headers: BearerHeader,
        response: { 200: UsageSummaryResponse, ...problems(401, 403) },
      },
    },
    (request) => usageSummary(ctx, accountOf(request)),
  );
}
