/**
 * Writing what the attempts did, in one transaction for all outcomes that came in together: the attempt
 * log (one multi-row insert), then each delivery's next state. Only the worker that holds a delivery's
 * lease moves it (status 'delivering' and lease_owner checked); the log row is written regardless, since
 * the attempt did happen.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { DeliveryRow } from './claim.js';
import { retryDelayMs } from './schedule.js';
import type { WebhookResponse } from './transport.js';

/** Error text kept per attempt. */
export const MAX_ERROR_CHARS = 1000;
export const INTERRUPTED = 'the attempt was interrupted (the server stopped or crashed before the answer was recorded)';

export interface Outcome {
  readonly row: DeliveryRow;
  readonly url: string;
  readonly startedAt: string;
  readonly finishedAt: Date;
  readonly response: WebhookResponse;
}

export interface Recorded {
  /** Deliveries that became dead letters. */
  readonly dead: string[];
  /** Endpoints disabled by a 410. */
  readonly disabled: string[];
}

export function truncate(text: string): string {
  return text.length <= MAX_ERROR_CHARS ? text : `${text.slice(0, MAX_ERROR_CHARS - 1)}…`;
}

/** The log line of an attempt that did not succeed. */
export function describeFailure(response: WebhookResponse): string {
  if (response.statusCode === null) return truncate(response.error ?? 'no answer');
  const redirect =
    response.statusCode >= 300 && response.statusCode < 400
      ? ` (redirect${response.location ? ` to ${response.location}` : ''}: redirects are not followed)`
      : '';
  const body = response.excerpt.trim().replace(/\s+/g, ' ');
  return truncate(`HTTP ${response.statusCode}${redirect}${body ? `: ${body}` : ''}`);
}

const succeeded = (status: number | null): boolean => status !== null && status >= 200 && status < 300;

export async function recordOutcomes(
  db: Kysely<Database>,
  outcomes: readonly Outcome[],
  options: { owner: string; random: () => number; now: Date },
): Promise<Recorded> {
  const dead: string[] = [];
  const disabled: string[] = [];
  if (outcomes.length === 0) return { dead, disabled };
  const at = options.now.toISOString();
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('webhook_attempts')
      .values(
        outcomes.map(({ row, url, startedAt, finishedAt, response }) => ({
          id: randomUUID(),
          delivery_id: row.id,
          event_id: row.event_id,
          event_type: row.event_type,
          endpoint_id: row.endpoint_id,
          account_id: row.account_id,
          url,
          attempt: Number(row.attempts),
          status_code: response.statusCode,
          success: succeeded(response.statusCode) ? 1 : 0,
          duration_ms: response.durationMs,
          error: succeeded(response.statusCode) ? null : describeFailure(response),
          started_at: startedAt,
          finished_at: finishedAt.toISOString(),
        })),
      )
      .execute();

    const mine = (ids: string[]) =>
      trx
        .updateTable('webhook_deliveries')
        .where('id', 'in', ids)
        .where('status', '=', 'delivering')
        .where('lease_owner', '=', options.owner);
    // Successes, the common case: one statement per status code.
    const byStatus = new Map<number, string[]>();
    for (const { row, response } of outcomes) {
      if (succeeded(response.statusCode)) {
        byStatus.set(response.statusCode!, [...(byStatus.get(response.statusCode!) ?? []), row.id]);
      }
    }
    for (const [status, ids] of byStatus) {
      await mine(ids)
        .set({
          status: 'succeeded',
          delivered_at: at,
          lease_owner: null,
          lease_expires_at: null,
          last_status_code: status,
          last_error: null,
          updated_at: at,
        })
        .execute();
    }

    for (const { row, finishedAt, response } of outcomes) {
      const status = response.statusCode;
      if (succeeded(status)) continue;
      const attempt = Number(row.attempts);
      const failed = {
        lease_owner: null,
        lease_expires_at: null,
        last_status_code: status,
        last_error: describeFailure(response),
        updated_at: at,
      };
      if (status === 410) {
        const reason = truncate(
          `the receiver answered 410 Gone at ${finishedAt.toISOString()} (event ${row.event_id}); save the webhook again to enable it`,
        );
        const off = await trx
          .updateTable('webhook_endpoints')
          .set({ status: 'disabled', disabled_reason: reason, disabled_at: at, updated_at: at })
          .where('id', '=', row.endpoint_id)
          .where('status', '=', 'active')
          .executeTakeFirst();
        if (Number(off.numUpdatedRows) > 0) disabled.push(row.endpoint_id);
        await trx
          .updateTable('webhook_deliveries')
          .set({ status: 'paused', updated_at: at })
          .where('endpoint_id', '=', row.endpoint_id)
          .where('status', '=', 'pending')
          .execute();
        await mine([row.id])
          .set({ ...failed, status: 'paused' })
          .execute();
      } else if (attempt >= Number(row.max_attempts)) {
        const result = await mine([row.id])
          .set({ ...failed, status: 'dead' })
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) > 0) dead.push(row.id);
      } else {
        await mine([row.id])
          .set({
            ...failed,
            status: 'pending',
            next_attempt_at: new Date(finishedAt.getTime() + retryDelayMs(attempt, options.random)).toISOString(),
          })
          .execute();
      }
    }
  });
  return { dead, disabled };
}

/**
 * Deliveries whose worker vanished mid-attempt: logged as interrupted, then retried (or dead after the last attempt).
 */
export async function reapExpiredLeases(db: Kysely<Database>, now: Date): Promise<number> {
  const at = now.toISOString();
  const expired = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .selectAll('d')
    .select('e.url')
    .where('d.status', '=', 'delivering')
    .where('d.lease_expires_at', '<=', at)
    .limit(500)
    .execute();
  if (expired.length === 0) return 0;
  let reclaimed = 0;
  await db.transaction().execute(async (trx) => {
    for (const row of expired) {
      const last = Number(row.attempts) >= Number(row.max_attempts);
      const result = await trx
        .updateTable('webhook_deliveries')
        .set({
          status: last ? 'dead' : 'pending',
          next_attempt_at: at,
          lease_owner: null,
          lease_expires_at: null,
          last_status_code: null,
          last_error: INTERRUPTED,
          updated_at: at,
        })
        .where('id', '=', row.id)
        .where('status', '=', 'delivering')
        .where('lease_expires_at', '<=', at)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) continue;
      reclaimed++;
      await trx
        .insertInto('webhook_attempts')
        .values({
          id: randomUUID(),
          delivery_id: row.id,
          event_id: row.event_id,
          event_type: row.event_type,
          endpoint_id: row.endpoint_id,
          account_id: row.account_id,
          url: row.url,
          attempt: Number(row.attempts),
          status_code: null,
          success: 0,
          duration_ms: 0,
          error: INTERRUPTED,
          started_at: row.updated_at,
          finished_at: at,
        })
        .execute();
    }
  });
  return reclaimed;
}
