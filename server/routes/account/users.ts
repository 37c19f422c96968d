/**
 * Users of the account and its audit log (issue 15; docs/users.md). Admins manage users with their Bearer
 * login; the set-password and reset-request routes are public (the link's token, or nothing, is the proof).
 */
import type { FastifyRequest } from 'fastify';
import type { Context } from '../../domain/context.js';
import { listAudit, recordAudit, type Actor, type AuditAction } from '../../domain/users/audit-log.js';
import { inviteUser } from '../../domain/users/invite-user.js';
import { changeRole, deactivateUser } from '../../domain/users/manage-user.js';
import { changeOwnPassword, requestPasswordReset } from '../../domain/users/own-password.js';
import { setPasswordFromLink } from '../../domain/users/set-password.js';
import { listUsers } from '../../domain/users/users.js';
import { accountOf, bearerOf, requireUserAdmin, requireUserLogin } from '../../http/auth-hooks.js';
import { BearerHeader } from '../../http/schemas/auth.js';
import { problems } from '../../http/schemas/common.js';
import * as S from '../../http/schemas/users.js';
import { Type } from 'typebox';
import { LOGIN, PUBLIC } from '../../http/schemas/security.js';
import type { App } from '../../http/app-type.js';

export function actorOf(request: FastifyRequest): Actor {
  return { userId: request.user?.userId ?? null, email: request.user?.email ?? null, ip: request.ip };
}

/** Account changes made by routes of other areas, recorded once they succeeded (their domain code knows no actor). */
const AUDITED_ROUTES: Readonly<
  Record<string, { action: AuditAction; target: (request: FastifyRequest) => string | null }>
> = {
  'POST /apikey/generate/': {
    action: 'api_key_rotated',
    target: (r) => (r.body as { mode?: string } | undefined)?.mode ?? 'live',
  },
  'POST /webhook/save/': {
    action: 'webhook_changed',
    target: (r) => (r.body as { webhook_url?: string } | undefined)?.webhook_url ?? null,
  },
  'POST /webhook/secret/rotate/': { action: 'webhook_changed', target: () => 'secret rotated' },
  'PUT /mail/settings/': {
    action: 'mail_settings_changed',
    target: (r) => (r.body as { host?: string } | undefined)?.host?.trim() ?? null,
  },
  'DELETE /mail/settings/': { action: 'mail_settings_changed', target: () => 'removed' },
};

function auditOtherRoutes(app: App, ctx: Context, prefix: string): void {
  // onSend, not onResponse: the row is written before the caller has the answer, so reading the log next sees it.
  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode >= 300 || !request.user) return payload;
    const audited = AUDITED_ROUTES[`${request.method} ${(request.routeOptions.url ?? '').slice(prefix.length)}`];
    if (audited) {
      await recordAudit(ctx.db, ctx.now(), {
        accountId: request.user.accountId,
        action: audited.action,
        actor: actorOf(request),
        target: audited.target(request),
      });
    }
    return payload;
  });
}

export function userRoutes(app: App, ctx: Context, prefix: string): void {
  auditOtherRoutes(app, ctx, prefix);
  const admin = { onRequest: requireUserAdmin(ctx) };
  const bearer = { security: LOGIN, headers: BearerHeader };

  app.get(
    '/users/',
    {
      ...admin,
      schema: {
        operationId: 'listUsers',
        tags: ['users'],
        summary: 'The users of the account (admin)',
        ...bearer,
        response: { 200: S.UserListResponse, ...problems(401, 403) },
      },
    },
    async (request) => ({ items: await listUsers(ctx, accountOf(request)) }),
  );

  app.post(
    '/users/',
    {
      ...admin,
      schema: {
        operationId: 'inviteUser',
        tags: ['users'],
        summary: 'Invite a user by e-mail: a set-password link (72 h, single use) goes out through the mail outbox',
        ...bearer,
        description:
          'Without a mail server the mail is only kept: invitation.mail_delivery is kept and invitation.set_password_url carries the link to hand over.',
        body: S.InviteBody,
        response: { 201: S.InviteResponse, ...problems(401, 403, 409, 422) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await inviteUser(ctx, accountOf(request), request.body, actorOf(request))),
  );

  app.patch(
    '/users/:user_id/',
    {
      ...admin,
      schema: {
        operationId: 'changeUserRole',
        tags: ['users'],
        summary: "Change a user's role (never the last active admin's)",
        ...bearer,
        params: S.UserParams,
        body: S.RoleBody,
        response: { 200: S.UserItem, ...problems(401, 403, 404, 409, 422) },
      },
    },
    (request) => changeRole(ctx, accountOf(request), request.params.user_id, request.body.role, actorOf(request)),
  );

  app.post(
    '/users/:user_id/deactivate/',
    {
      ...admin,
      schema: {
        operationId: 'deactivateUser',
        tags: ['users'],
        summary: 'Deactivate a user: every session ends at once, logins are refused (never the last active admin)',
        ...bearer,
        params: S.UserParams,
        response: { 200: S.UserItem, ...problems(401, 403, 404, 409, 422) },
      },
    },
    (request) => deactivateUser(ctx, accountOf(request), request.params.user_id, actorOf(request)),
  );

  app.post(
    '/users/set-password/',
    {
      schema: {
        operationId: 'setPasswordFromLink',
        security: PUBLIC,
        tags: ['users'],
        summary: 'Public: set a password with the token of an invite or reset link (single use)',
        body: S.SetPasswordBody,
        response: { 200: S.SetPasswordResponse, ...problems(410, 422) },
      },
    },
    (request) => setPasswordFromLink(ctx, request.body.token, request.body.password, request.ip),
  );

  app.post(
    '/users/password-reset/',
    {
      schema: {
        operationId: 'requestPasswordReset',
        security: PUBLIC,
        tags: ['users'],
        summary:
          'Public: mail a reset link (1 h, single use) to an active user; always 202, whether or not the e-mail exists',
        body: S.ResetRequestBody,
        response: { 202: S.Accepted, ...problems(422) },
      },
    },
    async (request, reply) => {
      await requestPasswordReset(ctx, request.body.email, request.ip);
      return reply.code(202).send({ status: 'accepted' as const });
    },
  );

  app.post(
    '/users/me/password/',
    {
      onRequest: requireUserLogin(ctx),
      schema: {
        operationId: 'changeOwnPassword',
        tags: ['users'],
        summary: 'Change your own password (the current one required); your other sessions end',
        ...bearer,
        body: S.ChangePasswordBody,
        response: { 204: Type.Null(), ...problems(401, 422) },
      },
    },
    async (request, reply) => {
      await changeOwnPassword(ctx, request.user!.userId, bearerOf(request)!, request.body, actorOf(request));
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/audit-log/',
    {
      ...admin,
      schema: {
        operationId: 'listAuditLog',
        tags: ['users'],
        summary: 'The account audit log, newest first: who did what, when, from which address (admin)',
        ...bearer,
        querystring: S.AuditQuery,
        response: { 200: S.AuditResponse, ...problems(401, 403, 422) },
      },
    },
    (request) =>
      listAudit(ctx, accountOf(request), {
        limit: request.query.limit ?? 50,
        ...(request.query.before ? { before: request.query.before } : {}),
        ...(request.query.action ? { action: request.query.action } : {}),
      }),
  );
}
