/** Shapes of the users API ({legacy_base}/users/, /audit-log/; docs/users.md). */
import { LEGACY_BASE } from '../../api';
import type { ConsoleStringKey } from '../../strings';

export const ROLES = ['admin', 'sender', 'api_admin'] as const;
export type Role = (typeof ROLES)[number];
export type UserStatus = 'active' | 'invited' | 'deactivated';

export interface User {
  id: string;
  email: string;
  role: Role;
  status: UserStatus;
  created_at: string;
  last_login_at: string | null;
}

/** The answer to an invitation: with a kept mail (no mail server) it carries the set-password link. */
export interface InvitedUser extends User {
  invitation: { mail_id: string; mail_delivery: 'queued' | 'kept'; set_password_url: string | null };
}

export interface AuditItem {
  id: string;
  action: string;
  actor_email: string | null;
  target: string | null;
  detail: Record<string, unknown> | null;
  ip: string | null;
  created_at: string;
}

export interface AuditPage {
  items: AuditItem[];
  next_before: string | null;
}

export const usersPath = (rest = ''): string => `${LEGACY_BASE}/users/${rest}`;

export const roleKey = (role: string): ConsoleStringKey =>
  (ROLES as readonly string[]).includes(role) ? (`users.role.${role}` as ConsoleStringKey) : 'users.role.sender';

export const STATUS_TONE: Record<UserStatus, string> = {
  active: 'tone-success',
  invited: 'tone-info',
  deactivated: 'tone-danger',
};

/** The password rule of the server (at least 12 characters), checked before sending. */
export const MIN_PASSWORD_LENGTH = 12;
