/** Login of the api_admin user: short-lived access token, revocable rotating refresh token. */
import { Type } from 'typebox';
import { login } from '../../domain/auth/login.js';
import { logout, refreshTokens } from '../../domain/auth/tokens.js';
import type { Context } from '../../domain/context.js';
import { problems } from '../../http/schemas/common.js';
import { LoginBody, RefreshBody, TokenPairResponse } from '../../http/schemas/auth.js';
import { PUBLIC } from '../../http/schemas/security.js';
import type { App } from '../../http/app-type.js';

export function authRoutes(app: App, ctx: Context): void {
  app.post(
    '/auth/login/',
    {
      schema: {
        operationId: 'login',
        security: PUBLIC,
        tags: ['auth'],
        summary:
          'Log in (any active user); 5 failures in 15 minutes lock the login for 15 minutes, 30 from one address refuse that address; 403 account_suspended for a suspended account',
        body: LoginBody,
        response: { 200: TokenPairResponse, ...problems(401, 403, 422, 429) },
      },
    },
    (request) => login(ctx, request.body.email, request.body.password, request.ip),
  );

  app.post(
    '/auth/refresh/',
    {
      schema: {
        operationId: 'refreshTokens',
        security: PUBLIC,
        tags: ['auth'],
        summary:
          'Exchange a refresh token for a new token pair (the old one stops working; presenting it again revokes every token of its login)',
        body: RefreshBody,
        response: { 200: TokenPairResponse, ...problems(401, 403, 422) },
      },
    },
    (request) => refreshTokens(ctx, request.body.refresh_token),
  );

  app.post(
    '/auth/logout/',
    {
      schema: {
        operationId: 'logout',
        security: PUBLIC,
        tags: ['auth'],
        summary: 'Log out: revoke the refresh token and every token of its login',
        body: RefreshBody,
        response: { 204: Type.Null(), ...problems(401, 422) },
      },
    },
    async (request, reply) => {
      await logout(ctx, request.body.refresh_token);
      return reply.code(204).send(null);
    },
  );
}
