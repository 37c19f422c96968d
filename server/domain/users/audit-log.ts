/**
 * The account audit log: who did what to the account, when and from which address. Rows are written beside
 * the change they describe (pass the transaction as db) and never updated.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AccountAuditAction } from '../../../common/audit-actions.js';
import type { Database } from '../../storage/schema.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';

/** The account audit log's actions: common/audit-actions.ts, shared with the console, which words each. */
export type AuditAction = AccountAuditAction;

/** The user acting and the address the request came from; both absent for the CLI and background work. */
export interface Actor {
  readonly userId?: string | null;
  readonly email?: string | null;
  readonly ip?: string | null;
}

export interface AuditEntry {
  readonly accountId: string;
  readonly action: AuditAction;
  readonly actor: Actor;
  /** What the action was done to: a user's e-mail, a key mode, a webhook URL. */
  readonly target?: string | null;
  readonly detail?: Record<string, unknown>;
}

export async function recordAudit(db: Kysely<Database>, now: Date, entry: AuditEntry): Promise<void> {
  await db
    .insertInto('account_audit_log')
    .values({
      id: randomUUID(),
      account_id: entry.accountId,
      actor_user_id: entry.actor.userId ?? null,
      actor_email: entry.actor.email ?? null,
      action: entry.action,
      target: entry.target ?? null,
      detail: entry.detail ? JSON.stringify(entry.detail) : null,
      ip: entry.actor.ip ?? null,
      created_at: iso(now),
    })
    .execute();
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
  /** Pass as `before` for the next (older) page; null on the last page. */
  next_before: string | null;
}

/** Newest first; `before` is the id of the last row of the previous page. */
export async function listAudit(
  ctx: Context,
  accountId: string,
  options: { limit: number; before?: string; action?: string },
): Promise<AuditPage> {
  let query = ctx.db.selectFrom('account_audit_log').selectAll().where('account_id', '=', accountId);
  if (options.action) query = query.where('action', '=', options.action);
  if (options.before) {
    const cursor = await ctx.db
      .selectFrom('account_audit_log')
      .select(['created_at', 'id'])
      .where('id', '=', options.before)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    if (cursor) {
      query = query.where((eb) =>
        eb.or([
          eb('created_at', '<', cursor.created_at),
          eb.and([eb('created_at', '=', cursor.created_at), eb('id', '<', cursor.id)]),
        ]),
      );
    }
  }
  const rows = await query
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(options.limit + 1)
    .execute();
  const page = rows.slice(0, options.limit);
  return {
    items: page.map((r) => ({
      id: r.id,
      action: r.action,
      actor_email: r.actor_email,
      target: r.target,
      detail: r.detail ? (JSON.parse(r.detail) as Record<string, unknown>) : null,
      ip: r.ip,
      created_at: r.created_at,
    })),
    next_before: rows.length > options.limit ? page[page.length - 1]!.id : null,
  };
}
