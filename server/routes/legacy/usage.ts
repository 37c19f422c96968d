/** GET /usage/summary/: this month's legacy create calls against the quota, and the burst limit. */
import { Type } from 'typebox';
import type { Context } from '../../domain/context.js';
import { usageSummary } from '../../domain/limits/monthly-quota.js';
import { accountOf, requireKeyOrLogin } from '../../http/auth-hooks.js';
import { BearerHeader } from '../../http/schemas/auth.js';
import { ApiKeyHeader, problems } from '../../http/schemas/common.js';
import { UsageSummaryResponse } from '../../http/schemas/legacy.js';
import type { App } from '../types.js';

export function usageRoutes(app: App, ctx: Context): void {
  app.get(
    '/usage/summary/',
    {
      onRequest: requireKeyOrLogin(ctx),
      schema: {
        tags: ['usage'],
        summary: 'Monthly call quota and usage of the account, and the per-key rate limit',
        security: [{ bearer: [] }, { apiKey: [] }],
        headers: Type.Object({ ...BearerHeader.properties, ...ApiKeyHeader.properties }),
        response: { 200: UsageSummaryResponse, ...problems(401, 403) },
      },
    },
    (request) => usageSummary(ctx, accountOf(request)),
  );
}
