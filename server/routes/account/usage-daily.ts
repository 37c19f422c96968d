/** GET /usage/daily/: this month's use per day, for the developer portal's chart. */
import { Type } from 'typebox';
import type { Context } from '../../domain/context.js';
import { dailyUsage } from '../../domain/limits/daily-usage.js';
import { accountOf, requireKeyOrLogin } from '../../http/auth-hooks.js';
import { BearerHeader } from '../../http/schemas/auth.js';
import { problems } from '../../http/schemas/common.js';
import { API_KEY_OR_LOGIN } from '../../http/schemas/security.js';
import type { App } from '../../http/app-type.js';

export const DailyUsageResponse = Type.Object({
  period: Type.String({ description: 'calendar month, UTC (YYYY-MM)' }),
  days: Type.Array(
    Type.Object({
      date: Type.String({ format: 'date', description: 'UTC day' }),
      envelopes: Type.Integer({ description: 'envelopes created that day, by any API' }),
      calls: Type.Integer({ description: 'legacy document creates with live keys (what the monthly quota counts)' }),
      test_calls: Type.Integer({ description: 'legacy document creates with test keys (never against the quota)' }),
      test_envelopes: Type.Integer({
        description:
          'envelopes made with test keys by any API, test_calls among them (test data: no quota, no legal effect)',
      }),
    }),
    { description: 'every day of the month up to today, oldest first' },
  ),
});

export function usageDailyRoutes(app: App, ctx: Context): void {
  app.get(
    '/usage/daily/',
    {
      onRequest: requireKeyOrLogin(ctx),
      schema: {
        operationId: 'getDailyUsage',
        tags: ['usage'],
        summary:
          "This month's use per day (UTC): envelopes created, legacy creates counted by the quota, test-key creates",
        security: API_KEY_OR_LOGIN,
        headers: BearerHeader,
        response: { 200: DailyUsageResponse, ...problems(401, 403) },
      },
    },
    (request) => dailyUsage(ctx, accountOf(request)),
  );
}
