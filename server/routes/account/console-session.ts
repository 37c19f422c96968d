/**
 * The office console's session (/app): log in, resume after a reload, log out. The refresh token lives in an
 * HttpOnly, SameSite=Strict cookie scoped to these three paths (Secure when the server is reached over HTTPS);
 * the access token is answered in the body for the page's memory. Every call must carry X-Mohar-Console: a
 * header another site's page cannot add without a CORS preflight, so a cross-site form or fetch cannot log a
 * user in or out or mint tokens with their cookie.
 */
import cookie from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { jsonWithHeaders, problemWithHeaders } from '../../http/schemas/responses.js';
import { inlineHeaders } from '../../http/openapi-headers.js';
import { Type } from 'typebox';
import { MoharError } from '../../../common/errors.js';
import {
  endConsoleSession,
  resumeConsoleSession,
  startConsoleSession,
  type ConsoleSession,
} from '../../domain/auth/console-session.js';
import type { Context } from '../../domain/context.js';
import { LoginBody } from '../../http/schemas/auth.js';
import { problems } from '../../http/schemas/common.js';
import { ConsoleHeader, ConsoleSessionResponse } from '../../http/schemas/console-session.js';
import { PUBLIC } from '../../http/schemas/security.js';
import type { App } from '../../http/app-type.js';

export const CONSOLE_COOKIE = 'mohar_console';

function requireConsoleHeader(request: FastifyRequest): Promise<void> {
  if (request.headers['x-mohar-console'] !== '1') {
    return Promise.reject(
      new MoharError(
        'csrf_header_missing',
        'send the header X-Mohar-Console: 1 (the console does); cross-site requests are refused',
      ),
    );
  }
  return Promise.resolve();
}

export async function consoleSessionRoutes(app: App, ctx: Context, prefix: string): Promise<void> {
  await app.register(cookie);
  const cookiePath = `${prefix}/auth/session/`;
  const secure = ctx.config.baseUrl.startsWith('https:');
  const tags = ['console session'];

  const answer = (reply: FastifyReply, session: ConsoleSession) => {
    reply.setCookie(CONSOLE_COOKIE, session.refreshToken, {
      path: cookiePath,
      httpOnly: true,
      sameSite: 'strict',
      secure,
      maxAge: session.refreshMaxAgeSeconds,
    });
    reply.header('Cache-Control', 'no-store');
    return {
      access_token: session.access_token,
      token_type: 'Bearer' as const,
      expires_in: session.expires_in,
      user: session.user,
    };
  };
  const clear = (reply: FastifyReply) =>
    reply.clearCookie(CONSOLE_COOKIE, { path: cookiePath, httpOnly: true, sameSite: 'strict', secure });

  app.post(
    '/auth/session/',
    {
      onRequest: requireConsoleHeader,
      schema: {
        operationId: 'startConsoleSession',
        security: PUBLIC,
        tags,
        summary:
          'Console login: sets the HttpOnly refresh cookie, answers an access token (5 failures in 15 minutes lock the login)',
        headers: ConsoleHeader,
        body: LoginBody,
        response: {
          200: jsonWithHeaders(ConsoleSessionResponse, ['Set-Cookie', 'Cache-Control'], 'the session'),
          ...problems(401, 403, 422, 429),
        },
      },
    },
    async (request, reply) =>
      answer(reply, await startConsoleSession(ctx, request.body.email, request.body.password, request.ip)),
  );

  app.post(
    '/auth/session/refresh/',
    {
      onRequest: requireConsoleHeader,
      schema: {
        operationId: 'resumeConsoleSession',
        security: PUBLIC,
        tags,
        summary: 'Trade the refresh cookie for a new access token (the cookie rotates; a used one stops working)',
        description:
          'Without a session cookie the answer is 204 No Content: nobody is logged in in this browser. The console asks on every load, and that ordinary answer must not be an error the browser logs; a spent or revoked cookie is still refused (401).',
        headers: ConsoleHeader,
        response: {
          200: jsonWithHeaders(ConsoleSessionResponse, ['Set-Cookie', 'Cache-Control'], 'the session'),
          204: Type.Null({
            description: 'no session cookie: not logged in',
            headers: inlineHeaders(['Cache-Control']),
          }),
          ...problems(403),
          // A spent or missing refresh cookie is cleared.
          401: problemWithHeaders(['Set-Cookie']),
        },
      },
    },
    async (request, reply) => {
      const refreshToken = request.cookies[CONSOLE_COOKIE];
      // Nothing to refresh is not a refusal (no cookie to clear, nothing learned by asking).
      if (!refreshToken) return reply.code(204).header('Cache-Control', 'no-store').send(null);
      try {
        return answer(reply, await resumeConsoleSession(ctx, refreshToken));
      } catch (error) {
        if (error instanceof MoharError && error.code === 'invalid_token') {
          clear(reply);
        }
        throw error;
      }
    },
  );

  app.post(
    '/auth/session/logout/',
    {
      onRequest: requireConsoleHeader,
      schema: {
        operationId: 'endConsoleSession',
        security: PUBLIC,
        tags,
        summary: 'Log out: revokes the refresh cookie and every access token it minted',
        headers: ConsoleHeader,
        response: { 204: Type.Null({ headers: inlineHeaders(['Set-Cookie']) }), ...problems(403) },
      },
    },
    async (request, reply) => {
      await endConsoleSession(ctx, request.cookies[CONSOLE_COOKIE]);
      clear(reply);
      return reply.code(204).send(null);
    },
  );
}
