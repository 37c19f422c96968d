/**
 * Legacy documents by their integer id, with the ownership rule of the legacy status calls: an id of
 * another account is 403 document_not_owned (the interface tells "not owned" and "not found" apart),
 * an unknown id 404 document_not_found.
 */
import type { CompiledQuery, Kysely } from 'kysely';
import { MoharError } from '../../../common/errors.js';
import type { Database, DataMode, EnvelopeStatus, RecipientStatus } from '../../storage/schema.js';
import type { Context } from '../context.js';

export interface LegacyDocument {
  readonly id: number;
  readonly accountId: string;
  readonly envelopeId: string;
  readonly test: boolean;
}

/** `mode`: the caller's (ctx.mode); a document of the other mode is not found, as for envelopes (issue 16). */
export function checkOwner(
  row: { account_id: string; test: number } | undefined,
  accountId: string,
  documentId: number,
  mode?: DataMode,
): void {
  if (!row || (mode !== undefined && (row.test === 1 ? 'test' : 'live') !== mode)) {
    throw new MoharError('document_not_found', `no document ${documentId}`);
  }
  if (row.account_id !== accountId) {
    throw new MoharError(
      'document_not_owned',
      `document ${documentId} belongs to another account; use that account's API key`,
    );
  }
}

export async function findLegacyDocument(ctx: Context, accountId: string, documentId: number): Promise<LegacyDocument> {
  const row = await ctx.db
    .selectFrom('legacy_documents')
    .select(['id', 'account_id', 'envelope_id', 'test'])
    .where('id', '=', documentId)
    .where('envelope_id', 'is not', null)
    .executeTakeFirst();
  checkOwner(row, accountId, documentId, ctx.mode);
  return { id: row!.id, accountId: row!.account_id, envelopeId: row!.envelope_id!, test: row!.test === 1 };
}

/** A legacy document's envelope, recipients in order: the rows behind both status calls. */
export interface StatusRow {
  account_id: string;
  test: number;
  envelope_id: string;
  envelope_status: EnvelopeStatus;
  name: string | null;
  email: string | null;
  role: string | null;
  signature_method: string | null;
  sequence: number | null;
  recipient_status: RecipientStatus | null;
  decline_reason: string | null;
}

const compiled = new WeakMap<Kysely<Database>, CompiledQuery<StatusRow>>();

/** The status calls are polled: one query, compiled once per database handle. */
function statusQuery(db: Kysely<Database>): CompiledQuery<StatusRow> {
  let query = compiled.get(db);
  if (!query) {
    query = db
      .selectFrom('legacy_documents')
      .innerJoin('envelopes', 'envelopes.id', 'legacy_documents.envelope_id')
      .leftJoin('recipients', 'recipients.envelope_id', 'envelopes.id')
      .select([
        'legacy_documents.account_id',
        'legacy_documents.test',
        'envelopes.id as envelope_id',
        'envelopes.status as envelope_status',
        'recipients.name',
        'recipients.email',
        'recipients.role',
        'recipients.signature_method',
        'recipients.sequence',
        'recipients.status as recipient_status',
        'recipients.decline_reason',
      ])
      .where('legacy_documents.id', '=', 0)
      .orderBy('recipients.position')
      .compile() as CompiledQuery<StatusRow>;
    compiled.set(db, query);
  }
  return query;
}

export async function legacyStatusRows(ctx: Context, accountId: string, documentId: number): Promise<StatusRow[]> {
  const { rows } = await ctx.db.executeQuery<StatusRow>({ ...statusQuery(ctx.db), parameters: [documentId] });
  checkOwner(rows[0], accountId, documentId, ctx.mode);
  return rows;
}
