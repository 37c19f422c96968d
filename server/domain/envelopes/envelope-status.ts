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

interface StatusRow {
  id: string;
  status: string;
  updated_at: string;
  recipient_id: string | null;
  name: string | null;
  email: string | null;
  role: string | null;
  signature_method: string | null;
  sequence: number | null;
  recipient_status: string | null;
}

const compiled = new WeakMap<Kysely<Database>, CompiledQuery<StatusRow>>();

function statusQuery(db: Kysely<Database>): CompiledQuery<StatusRow> {
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
      ])
      .where('envelopes.id', '=', '')
      .where('envelopes.account_id', '=', '')
      .orderBy('recipients.position')
      .compile() as CompiledQuery<StatusRow>;
    compiled.set(db, query);
  }
  return query;
}

export async function envelopeStatus(ctx: Context, accountId: string, envelopeId: string): Promise<EnvelopeStatusView> {
  const query: CompiledQuery<StatusRow> = { ...statusQuery(ctx.db), parameters: [envelopeId, accountId] };
  const rows = ctx.sqlite?.readNow(query) ?? (await ctx.db.executeQuery(query)).rows;
  const first = rows[0];
  if (!first) throw new MoharError('envelope_not_found', `no envelope ${envelopeId}`);
  const recipients: RecipientView[] = [];
  for (const r of rows) {
    if (r.recipient_id === null) continue;
    recipients.push({ recipient_id: r.recipient_id, name: r.name!, email: r.email!, role: r.role!, signature_method: r.signature_method!, sequence: r.sequence!, status: r.recipient_status! });
  }
  return { envelope_id: first.id, status: first.status, recipients, updated_at: first.updated_at };
}
