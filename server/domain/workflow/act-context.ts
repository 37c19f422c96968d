/** Shared checks and bookkeeping of every signer act: who may act, and what follows an act. */
import type { Kysely } from 'kysely';
import { MoharError } from '../../../common/errors.js';
import type { Database, EnvelopesTable, RecipientsTable } from '../../storage/schema.js';
import { recordEvent, type EventType } from './events.js';
import { currentTurn, everyActorFinished } from './routing.js';
import { envelopeSummary, recipientSummary } from './summaries.js';
import type { Context } from '../context.js';
import { enqueue } from '../../jobs/definition.js';
import { COMPLETE_JOB } from './job-kinds.js';
import { mailTurn } from './notify.js';
import { FINISHED_ENVELOPE_STATUSES } from './states.js';

export interface ClientInfo {
  readonly ip: string;
  readonly userAgent: string;
  /** How the signer was reached: the kind of link they act through (sessions.ts, REACHED_BY). */
  readonly reachedBy?: string;
}

/** The network facts every act records in its audit row: address, user agent, and how the signer was reached. */
export function clientDetails(client: ClientInfo): { ip: string; user_agent: string; reached_by?: string } {
  return {
    ip: client.ip,
    user_agent: client.userAgent,
    ...(client.reachedBy === undefined ? {} : { reached_by: client.reachedBy }),
  };
}

type Envelope = Omit<EnvelopesTable, 'events_seq'> & { events_seq: number };

type Actors = { envelope: Envelope; recipient: RecipientsTable; recipients: RecipientsTable[] };

/** Loads the envelope and recipient of a session and refuses acts that are not theirs to make now. */
export async function loadActors(
  db: Kysely<Database>,
  envelopeId: string,
  recipientId: string,
  lock = false,
): Promise<Actors> {
  const envelope = await db
    .selectFrom('envelopes')
    .selectAll()
    .where('id', '=', envelopeId)
    .$if(lock, (qb) => qb.forUpdate())
    .executeTakeFirstOrThrow();
  if (FINISHED_ENVELOPE_STATUSES.has(envelope.status)) {
    throw new MoharError('envelope_closed', `the envelope is ${envelope.status}: nobody can act on it any more`, {
      extra: { envelope_status: envelope.status },
    });
  }
  const recipients = await db
    .selectFrom('recipients')
    .selectAll()
    .where('envelope_id', '=', envelopeId)
    .orderBy('position')
    .execute();
  const recipient = recipients.find((r) => r.id === recipientId)!;
  if (recipient.status === 'waiting') {
    throw new MoharError('recipient_not_active', 'it is not your turn yet: earlier recipients must act first', {
      extra: { recipient_status: recipient.status },
    });
  }
  if (recipient.status !== 'active' && recipient.status !== 'viewed') {
    throw new MoharError('recipient_not_active', `you have already acted on this envelope (${recipient.status})`, {
      extra: { recipient_status: recipient.status },
    });
  }
  return { envelope, recipient, recipients };
}

/**
 * loadActors inside an act's transaction. On PostgreSQL the envelope row is locked first (SELECT … FOR UPDATE),
 * so acts and declines on one envelope run one after the other and each sees what the previous one committed:
 * a decline cannot slip between another act's checks and its commit. SQLite runs one transaction at a time.
 */
export function lockActors(
  ctx: Context,
  trx: Kysely<Database>,
  envelopeId: string,
  recipientId: string,
): Promise<Actors> {
  return loadActors(trx, envelopeId, recipientId, ctx.dialect === 'postgres');
}

/**
 * Claims the recipient for an act: only from active or viewed, so two acts (or an act and a decline) never both land.
 */
export async function claimRecipient(
  trx: Kysely<Database>,
  recipientId: string,
  set: Partial<Pick<RecipientsTable, 'status' | 'acted_at' | 'act_details' | 'decline_reason'>>,
): Promise<void> {
  const moved = await trx
    .updateTable('recipients')
    .set(set)
    .where('id', '=', recipientId)
    .where('status', 'in', ['active', 'viewed'])
    .executeTakeFirst();
  if (Number(moved.numUpdatedRows) !== 1) {
    throw new MoharError('recipient_not_active', 'this recipient has already acted (a second submission?)');
  }
}

/**
 * Records a finished act inside the caller's transaction: the recipient's new status and details, the event,
 * and the next routing step. Their signing links end with the new status (resolveSession refuses them). Returns true
 * when every actor has finished.
 */
export async function recordAct(
  ctx: Context,
  trx: Kysely<Database>,
  envelope: Envelope,
  recipients: RecipientsTable[],
  recipient: RecipientsTable,
  status: 'signed' | 'approved' | 'reviewed',
  details: Record<string, unknown>,
  at: string,
): Promise<boolean> {
  await claimRecipient(trx, recipient.id, { status, acted_at: at, act_details: JSON.stringify(details) });
  const event: EventType =
    status === 'signed' ? 'recipient.signed' : status === 'approved' ? 'recipient.approved' : 'recipient.reviewed';
  await recordEvent(
    trx,
    envelope.account_id,
    envelope.id,
    event,
    { envelope: envelopeSummary(envelope), recipient: recipientSummary({ ...recipient, status }) },
    at,
    {
      type: 'recipient',
      id: recipient.id,
      details: { recipient_id: recipient.id, role: recipient.role, order: recipient.sequence, ...details },
    },
  );
  const after = recipients.map((r) => (r.id === recipient.id ? { ...r, status } : r));
  const turn = new Set(currentTurn(after, envelope.routing_order));
  const newlyActive = after.filter((r) => turn.has(r.id) && r.status === 'waiting');
  for (const r of newlyActive) {
    await trx
      .updateTable('recipients')
      .set({ status: 'active' })
      .where('id', '=', r.id)
      .where('status', '=', 'waiting')
      .execute();
  }
  await mailTurn(trx, ctx, envelope, newlyActive, 'your_turn');
  const finished = everyActorFinished(after);
  // Completion is a durable job: it is also tried at once after this commit, and retried if that fails.
  if (finished) {
    await enqueue(
      trx,
      COMPLETE_JOB,
      { envelope_id: envelope.id },
      { dedupeKey: `complete:${envelope.id}`, accountId: envelope.account_id, now: new Date(at) },
    );
  }
  return finished;
}
