/** Users of an account and its audit log (issue 15): request and response shapes. */
import { Type } from 'typebox';
import { ACCOUNT_AUDIT_ACTIONS } from '../../../common/audit-actions.js';
import { ROLES, USER_STATUSES } from '../../domain/users/roles.js';
import { Nullable, StringEnum, Uuid } from './common.js';

const Role = StringEnum(ROLES, {
  description:
    'admin: everything; sender: envelopes, templates, bulk sends; api_admin: keys, webhooks, account settings',
});
const Password = Type.String({ minLength: 1, maxLength: 1024, description: 'at least 12 characters' });

export const UserItem = Type.Object({
  id: Uuid,
  email: Type.String(),
  role: Role,
  status: StringEnum(USER_STATUSES, { description: 'invited: has not set a password yet; deactivated: cannot log in' }),
  created_at: Type.String({ format: 'date-time' }),
  last_login_at: Nullable(Type.String({ format: 'date-time' })),
});

export const InviteResponse = Type.Object({
  ...UserItem.properties,
  invitation: Type.Object({
    mail_id: Type.String({ format: 'uuid', description: 'the invitation mail in the outbox (GET /mail/outbox/{id}/)' }),
    mail_delivery: StringEnum(['queued', 'kept'] as const, {
      description: 'queued: a mail server will send it; kept: no mail server is set, no mail was sent',
    }),
    set_password_url: Nullable(
      Type.String({ description: 'the set-password link to hand over yourself; only when mail_delivery is kept' }),
    ),
  }),
});

export const UserListResponse = Type.Object({ items: Type.Array(UserItem) });
export const InviteBody = Type.Object({ email: Type.String({ minLength: 3, maxLength: 320 }), role: Role });
export const RoleBody = Type.Object({ role: Role });
export const UserParams = Type.Object({ user_id: Uuid });
export const SetPasswordBody = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 200, description: 'from the link ?token=' }),
  password: Password,
});
export const SetPasswordResponse = Type.Object({
  email: Type.String({ description: 'log in with this e-mail and the new password' }),
});
export const ChangePasswordBody = Type.Object({
  current_password: Type.String({ minLength: 1, maxLength: 1024 }),
  new_password: Password,
});
export const ResetRequestBody = Type.Object({ email: Type.String({ minLength: 1, maxLength: 320 }) });
export const Accepted = Type.Object({ status: Type.Literal('accepted') });

export const AuditQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  before: Type.Optional(Type.String({ format: 'uuid', description: 'paging: next_before of the previous page' })),
  action: Type.Optional(Type.String({ maxLength: 64, description: 'only this action, e.g. login_failed' })),
});

export const AuditItem = Type.Object({
  id: Uuid,
  action: Type.String({ description: ACCOUNT_AUDIT_ACTIONS.join(', ') }),
  actor_email: Nullable(Type.String({ description: 'who did it (null: someone not logged in)' })),
  target: Nullable(Type.String({ description: 'what it was done to: a user e-mail, a key mode, a webhook URL' })),
  detail: Nullable(Type.Record(Type.String(), Type.Unknown())),
  ip: Nullable(Type.String({ description: 'the client address' })),
  created_at: Type.String({ format: 'date-time' }),
});

export const AuditResponse = Type.Object({
  items: Type.Array(AuditItem, { description: 'newest first' }),
  next_before: Nullable(Type.String({ description: 'pass as before for the next page; null on the last page' })),
});
