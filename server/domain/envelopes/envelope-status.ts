/**
 * GET /envelopes/{id}/status: the envelope's state and each recipient's, cheap enough to poll.
 * This is the hottest read of the API, so it is one query (envelope LEFT JOIN recipients), compiled once
 * per database handle instead of on every request; on SQLite it runs as a prepared statement through the
 * fast path (storage/sqlite-fast-path.ts) unless a transaction is open on the connection.
 */
import type { CompiledQuery, Kysely } from 'kysely';
import { MoharError } from '../../../common/errors.js';
import type { Database } from '../../storage/schema.js';
import type { Context } from '../context.js';
import type { RecipientView } from './views.js';

export interface EnvelopeStatusView {
  envelope_id: string;
  status: string;
  recipients: RecipientView[];
  updated_at: string;
}

/**
 * A row of the status query as an array, in select order: the SQLite fast path reads rows as arrays
 * (cheaper than objects), the Kysely path's objects are turned into the same. Recipient columns are null
 * only when the envelope has no recipient (LEFT JOIN).
 */
type StatusRow = [
  id: string,
  status: string,
  updatedAt: string,
  recipientId: string | null,
  name: string | null,
  email: string | null,
  role: string | null,
  signatureMethod: string | null,
  sequence: number | null,
  recipientStatus: string | null,
  mode: string,
];

const compiled = new WeakMap<Kysely<Database>, CompiledQuery>();

function statusQuery(db: Kysely<Database>): CompiledQuery {
  let query = compiled.get(db);
  if (!query) {
    query = db
      .selectFrom('envelopes')
      .leftJoin('recipients', 'recipients.envelope_id', 'envelopes.id')
      .select([
        'envelopes.id',
        'envelopes.status',
        'envelopes.updated_at',
        'recipients.id as recipient_id',
        'recipients.name',
        'recipients.email',
        'recipients.role',
        'recipients.signature_method',
        'recipients.sequence',
        'recipients.status as recipient_status',
        'envelopes.mode',
      ])
      .where('envelopes.id', '=', '')
      .where('envelopes.account_id', '=', '')
      .orderBy('recipients.position')
      .compile();
    compiled.set(db, query);
  }
  return query;
}

export async function envelopeStatus(ctx: Context, accountId: string, envelopeId: string): Promise<EnvelopeStatusView> {
  const query: CompiledQuery = { ...statusQuery(ctx.db), parameters: [envelopeId, accountId] };
  // Object.values keeps the select order: drivers create a row's properties column by column.
  const rows = (ctx.sqlite?.readArraysNow(query) ??
    (await ctx.db.executeQuery(query)).rows.map((row) => Object.values(row as object))) as StatusRow[];
  const first = rows[0];
  // The other mode's envelope is not found either (find-envelope.ts); checked here to keep the one compiled query.
  if (!first || (ctx.mode !== undefined && first[10] !== ctx.mode)) {
    throw new MoharError('envelope_not_found', `no envelope ${envelopeId}`);
  }
  const recipients: RecipientView[] = [];
  for (const [, , , recipientId, name, email, role, signatureMethod, sequence, recipientStatus] of rows) {
    if (recipientId === null) continue;
    recipients.push({
      recipient_id: recipientId,
      name: name!,
      email: email!,
      role: role!,
      signature_method: signatureMethod!,
      sequence: sequence!,
      status: recipientStatus!,
    });
  }
  return { envelope_id: first[0], status: first[1], recipients, updated_at: first[2] };
}
