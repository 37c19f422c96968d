/**
 * Who may do what (issue 15). admin: everything. api_admin (the login every account had before users existed):
 * keys, webhooks, account settings and the operators' views. sender: envelopes, templates and bulk sends only.
 */
export const ROLES = ['admin', 'sender', 'api_admin'] as const;
export type Role = (typeof ROLES)[number];

export const USER_STATUSES = ['active', 'invited', 'deactivated'] as const;
export type UserStatus = (typeof USER_STATUSES)[number];

/** Roles allowed on the account-management routes (keys, webhooks, settings, mail outbox, jobs, usage). */
export const ACCOUNT_MANAGERS: readonly string[] = ['admin', 'api_admin'];

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}
