/**
 * Automatic reminders (issue 16, point 6; settings in reminder-settings.ts), run by the durable job
 * `reminders.sweep`, hourly: each run enqueues the next (one per hour slot, deduped, so several instances on one
 * PostgreSQL database run it once), then mails whoever is due.
 *
 * Due, for a recipient whose turn it is and who has not acted (status active or viewed) on an envelope in
 * progress that mails its recipients (not delivery "none"):
 * - the expiry warning, once: from expiry_warning_days before the envelope expires;
 * - else a reminder: first_after_days after the recipient's turn began (when the envelope was sent, or in
 *   sequential routing when the last earlier recipient acted), then every_days after the last reminder.
 * Never more than one a day: nothing is mailed within 24 hours of the recipient's last reminder, manual or
 * automatic (recipients.reminded_at; a manual remind is always allowed, at most hourly, and counts). A warning
 * due at the same time as a reminder goes instead of it. Each mail carries a new link, which replaces the
 * recipient's earlier one (link-lifetime.ts), and is audited as reminder.sent (actor: system, automatic).
 */
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import { appendAudit } from '../../audit/index.js';
import { defineJob, enqueue, jobKind } from '../../jobs/definition.js';
import type { Database } from '../../storage/schema.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import { mailTurn } from './notify.js';
import { parseReminderSettings, readAccountReminders, type ReminderSettings } from './reminder-settings.js';
import { FINISHED_STATUSES } from './routing.js';

export const REMINDER_SWEEP_JOB = jobKind('reminders.sweep', Type.Object({}));
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** Enqueues the sweep for the hour slot after `now` (idempotent: one job per slot). */
export async function scheduleReminderSweep(db: Kysely<Database>, now: Date): Promise<void> {
  const runAt = new Date(Math.ceil((now.getTime() + 1) / HOUR_MS) * HOUR_MS);
  await enqueue(
    db,
    REMINDER_SWEEP_JOB,
    {},
    { runAt, dedupeKey: `${REMINDER_SWEEP_JOB.kind}:${runAt.toISOString()}`, now },
  );
}

export const reminderSweepJob = defineJob(REMINDER_SWEEP_JOB, async (ctx: Context) => {
  // The next slot first: a failing sweep is retried by the runner without breaking the chain.
  await scheduleReminderSweep(ctx.db, ctx.now());
  await sweepReminders(ctx);
});

interface Candidate {
  envelope_id: string;
  account_id: string;
  title: string;
  message: string | null;
  expires_at: string | null;
  sent_at: string | null;
  routing_order: string;
  reminders: string | null | undefined;
  recipient_id: string;
  name: string;
  email: string;
  role: string;
  sequence: number;
  reminded_at: string | null;
  expiry_warned_at: string | null | undefined;
}

/** Mails every reminder and warning due now; returns how many. */
export async function sweepReminders(ctx: Context): Promise<number> {
  const now = ctx.now();
  const dayAgo = iso(new Date(now.getTime() - DAY_MS));
  const candidates = (await ctx.db
    .selectFrom('recipients')
    .innerJoin('envelopes', 'envelopes.id', 'recipients.envelope_id')
    .select([
      'envelopes.id as envelope_id',
      'envelopes.account_id',
      'envelopes.title',
      'envelopes.message',
      'envelopes.expires_at',
      'envelopes.sent_at',
      'envelopes.routing_order',
      'envelopes.reminders',
    ])
    .select([
      'recipients.id as recipient_id',
      'recipients.name',
      'recipients.email',
      'recipients.role',
      'recipients.sequence',
      'recipients.reminded_at',
      'recipients.expiry_warned_at',
    ])
    .where('envelopes.status', '=', 'sent')
    .where('envelopes.send_mail', '<>', 0)
    .where('recipients.status', 'in', ['active', 'viewed'])
    .where((eb) => eb.or([eb('recipients.reminded_at', 'is', null), eb('recipients.reminded_at', '<=', dayAgo)]))
    .execute()) as Candidate[];
  const defaults = new Map<string, ReminderSettings>();
  let mailed = 0;
  for (const c of candidates) {
    let settings = parseReminderSettings(c.reminders ?? null);
    if (!settings) {
      if (!defaults.has(c.account_id)) defaults.set(c.account_id, await readAccountReminders(ctx.db, c.account_id));
      settings = defaults.get(c.account_id)!;
    }
    const due = await dueMail(ctx, c, settings, now);
    if (due && (await mailDue(ctx, c, due, now))) mailed++;
  }
  return mailed;
}

/** What is due for this recipient now, if anything (the daily limit is applied by the query). */
async function dueMail(
  ctx: Context,
  c: Candidate,
  s: ReminderSettings,
  now: Date,
): Promise<'reminder' | 'expiry_warning' | undefined> {
  const t = now.getTime();
  if (s.expiry_warning_days !== null && c.expires_at !== null && !c.expiry_warned_at) {
    const expires = new Date(c.expires_at).getTime();
    if (t >= expires - s.expiry_warning_days * DAY_MS && t < expires) return 'expiry_warning';
  }
  if (s.first_after_days === null) return undefined;
  const turnBegan = await turnStart(ctx.db, c);
  const last = c.reminded_at !== null && c.reminded_at >= turnBegan ? c.reminded_at : null;
  if (last === null) return t >= new Date(turnBegan).getTime() + s.first_after_days * DAY_MS ? 'reminder' : undefined;
  return s.every_days !== null && t >= new Date(last).getTime() + s.every_days * DAY_MS ? 'reminder' : undefined;
}

/** When the recipient's turn began: the send, or in sequential routing the last act of an earlier recipient. */
async function turnStart(db: Kysely<Database>, c: Candidate): Promise<string> {
  const sent = c.sent_at ?? '';
  if (c.routing_order !== 'sequential') return sent;
  const row = await db
    .selectFrom('recipients')
    .select((eb) => eb.fn.max('acted_at').as('last'))
    .where('envelope_id', '=', c.envelope_id)
    .where('sequence', '<', c.sequence)
    .where('status', 'in', [...FINISHED_STATUSES])
    .executeTakeFirst();
  const last = (row?.last as string | null | undefined) ?? null;
  return last !== null && last > sent ? last : sent;
}

/** Claims the recipient (unless someone reminded them meanwhile), queues the mail and audits it, in one commit. */
async function mailDue(ctx: Context, c: Candidate, kind: 'reminder' | 'expiry_warning', now: Date): Promise<boolean> {
  const at = iso(now);
  return ctx.db.transaction().execute(async (trx) => {
    const envelope = await trx
      .selectFrom('envelopes')
      .select(['id', 'account_id', 'title', 'message', 'expires_at', 'sent_at', 'send_mail', 'status'])
      .where('id', '=', c.envelope_id)
      .executeTakeFirstOrThrow();
    if (envelope.status !== 'sent') return false;
    let claim = trx
      .updateTable('recipients')
      .set(kind === 'expiry_warning' ? { reminded_at: at, expiry_warned_at: at } : { reminded_at: at })
      .where('id', '=', c.recipient_id)
      .where('status', 'in', ['active', 'viewed']);
    claim =
      c.reminded_at === null ? claim.where('reminded_at', 'is', null) : claim.where('reminded_at', '=', c.reminded_at);
    if (Number((await claim.executeTakeFirst()).numUpdatedRows) === 0) return false;
    await mailTurn(trx, ctx, envelope, [{ id: c.recipient_id, name: c.name, email: c.email, role: c.role }], kind);
    await appendAudit(trx, {
      envelopeId: c.envelope_id,
      accountId: c.account_id,
      actorType: 'system',
      action: 'reminder.sent',
      details: { recipients: [c.recipient_id], automatic: true, kind },
      at,
    });
    return true;
  });
}
