/**
 * Reading and writing template rows. Every change goes through `recordChange`, in one transaction: the
 * template row's pointers (latest version, archived), an immutable version row when the definition
 * changed, the template's audit row (hash-chained like the envelope trail) and the webhook event through
 * the outbox. Concurrent writers to one template are serialized by locking its row first (PostgreSQL:
 * FOR UPDATE; SQLite runs one transaction at a time), so versions stay 1, 2, 3… without gaps.
 */
import { randomUUID } from 'node:crypto';
import type { CompiledQuery, Kysely } from 'kysely';
import { MoharError } from '../../../common/errors.js';
import type { TemplateEventType } from '../../../common/events.js';
import { GENESIS_HASH, canonicalJson, hashAuditRow } from '../../audit/index.js';
import { isPostgres } from '../../storage/migrations/dialect.js';
import type { Database, TemplatesTable, TemplateVersionsTable } from '../../storage/schema.js';
import { queueDeliveries } from '../../webhooks/fan-out.js';
import type { Context } from '../context.js';
import type { TemplateActor, TemplateDefinition } from './model.js';
import type { TemplateRow } from './views.js';
import type { ChangeSummary } from './summary.js';

export interface LoadedVersion {
  readonly row: TemplateVersionsTable;
  readonly definition: TemplateDefinition;
  readonly summary: ChangeSummary;
}

/** A template of the caller's account, or template_not_found (also for other accounts' ids). */
export async function findTemplate(
  db: Kysely<Database>,
  accountId: string,
  templateId: string,
  lock = false,
): Promise<TemplateRow> {
  // The creator's e-mail by a subquery, not a join: PostgreSQL's FOR UPDATE refuses the nullable side of an outer join.
  let query = db
    .selectFrom('templates')
    .selectAll()
    .select((eb) =>
      eb
        .selectFrom('users')
        .select('users.email')
        .whereRef('users.id', '=', 'templates.created_by_user_id')
        .as('created_by_email'),
    )
    .where('id', '=', templateId)
    .where('account_id', '=', accountId);
  if (lock && isPostgres(db as unknown as Kysely<unknown>)) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  if (!row) throw new MoharError('template_not_found', `no template ${templateId}`);
  return { ...row, latest_version: Number(row.latest_version) };
}

const stateQueries = new WeakMap<Kysely<Database>, CompiledQuery>();

/**
 * What instantiation reads of the template row (archived? latest version?), by a query compiled once per
 * database and, on SQLite, read at once through the fast path: it runs for every instantiation.
 */
export async function templateState(
  ctx: Context,
  accountId: string,
  templateId: string,
): Promise<Pick<TemplatesTable, 'archived_at' | 'latest_version'>> {
  let compiled = stateQueries.get(ctx.db);
  if (!compiled) {
    compiled = ctx.db
      .selectFrom('templates')
      .select(['archived_at', 'latest_version'])
      .where('id', '=', '')
      .where('account_id', '=', '')
      .compile();
    stateQueries.set(ctx.db, compiled);
  }
  const query: CompiledQuery = { ...compiled, parameters: [templateId, accountId] };
  const rows =
    ctx.sqlite?.readArraysNow(query) ?? (await ctx.db.executeQuery(query)).rows.map((r) => Object.values(r as object));
  const row = rows[0];
  if (!row) throw new MoharError('template_not_found', `no template ${templateId}`);
  return { archived_at: row[0] as string | null, latest_version: Number(row[1]) };
}

export async function loadVersion(db: Kysely<Database>, templateId: string, version: number): Promise<LoadedVersion> {
  const row = await db
    .selectFrom('template_versions')
    .selectAll()
    .where('template_id', '=', templateId)
    .where('version', '=', version)
    .executeTakeFirst();
  if (!row) throw new MoharError('template_version_not_found', `template ${templateId} has no version ${version}`);
  return {
    row: { ...row, version: Number(row.version) },
    definition: JSON.parse(row.definition) as TemplateDefinition,
    summary: JSON.parse(row.summary) as ChangeSummary,
  };
}

export interface Change {
  readonly accountId: string;
  readonly templateId: string;
  readonly event: TemplateEventType;
  readonly actor: TemplateActor;
  readonly at: string;
  /** The template row as it is after the change. */
  readonly template: TemplatesTable;
  /** A new version, when the definition changed. */
  readonly version?: { readonly definition: TemplateDefinition; readonly summary: ChangeSummary };
  /** Extra audit details (e.g. where a template was created from). */
  readonly details?: Readonly<Record<string, unknown>>;
}

/** Writes the change in the caller's transaction: template row, version, audit row, event. */
export async function recordChange(trx: Kysely<Database>, change: Change, insert: boolean): Promise<void> {
  const t = change.template;
  // The latest version's retention is copied to the row, where the purge job reads it (domain/retention).
  const retention = change.version ? { retention_days: change.version.definition.settings.retention_days ?? null } : {};
  if (insert) {
    await trx
      .insertInto('templates')
      .values({ ...t, ...retention })
      .execute();
  } else {
    await trx
      .updateTable('templates')
      .set({
        name: t.name,
        latest_version: t.latest_version,
        archived_at: t.archived_at,
        updated_at: t.updated_at,
        ...retention,
      })
      .where('id', '=', t.id)
      .execute();
  }
  if (change.version) {
    await trx
      .insertInto('template_versions')
      .values({
        template_id: t.id,
        version: t.latest_version,
        account_id: change.accountId,
        definition: JSON.stringify(change.version.definition),
        summary: JSON.stringify(change.version.summary),
        actor_type: change.actor.type,
        actor_id: change.actor.id,
        created_at: change.at,
      })
      .execute();
  }
  const details = {
    version: t.latest_version,
    name: t.name,
    ...(change.version ? { changes: change.version.summary } : {}),
    ...(change.details ?? {}),
  };
  const seq = await appendTemplateAudit(trx, change, details);
  await recordTemplateEvent(trx, change, seq);
}

async function appendTemplateAudit(
  trx: Kysely<Database>,
  change: Change,
  details: Record<string, unknown>,
): Promise<number> {
  const last = await trx
    .selectFrom('template_audit')
    .select(['seq', 'hash'])
    .where('template_id', '=', change.templateId)
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
  const unhashed = {
    template_id: change.templateId,
    seq: (last ? Number(last.seq) : 0) + 1,
    account_id: change.accountId,
    at: change.at,
    actor_type: change.actor.type,
    actor_id: change.actor.id,
    action: change.event,
    details: canonicalJson(details),
    prev_hash: last?.hash ?? GENESIS_HASH,
  };
  // The envelope trail's hashing, with the template id in the envelope id's place: one chain per template.
  const { template_id: chainId, ...rest } = unhashed;
  const hash = hashAuditRow({ envelope_id: chainId, ...rest });
  await trx
    .insertInto('template_audit')
    .values({ ...unhashed, hash })
    .execute();
  return unhashed.seq;
}

/** The outbox event (events table, envelope_id null) and its deliveries to the account's webhook. */
async function recordTemplateEvent(trx: Kysely<Database>, change: Change, sequence: number): Promise<void> {
  const t = change.template;
  const id = randomUUID();
  const data = {
    template: {
      id: t.id,
      name: t.name,
      version: t.latest_version,
      archived: t.archived_at !== null,
      archived_at: t.archived_at,
    },
    ...(change.version ? { changes: change.version.summary } : {}),
  };
  const payload = { id, type: change.event, created_at: change.at, account_id: change.accountId, sequence, data };
  await trx
    .insertInto('events')
    .values({
      id,
      account_id: change.accountId,
      envelope_id: null,
      type: change.event,
      sequence,
      payload: JSON.stringify(payload),
      created_at: change.at,
    })
    .execute();
  await queueDeliveries(trx, {
    id,
    account_id: change.accountId,
    envelope_id: null,
    type: change.event,
    sequence,
    created_at: change.at,
  });
}

/** Runs `work` in a transaction that holds the template's row lock. */
export async function withTemplate<T>(
  ctx: Context,
  accountId: string,
  templateId: string,
  work: (trx: Kysely<Database>, template: TemplatesTable) => Promise<T>,
): Promise<T> {
  return ctx.db.transaction().execute(async (trx) => work(trx, await findTemplate(trx, accountId, templateId, true)));
}
