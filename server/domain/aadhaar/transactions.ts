/**
 * The esign_transactions rows (migration 0019): one per Esign request. A row is used once: the first
 * response (or status answer) that names it claims it (used_at), whatever it says; a second one is a replay.
 */
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { MoharError } from '../../../common/errors.js';
import type { Database, EsignTransactionsTable } from '../../storage/schema.js';
import { iso } from '../time.js';
import { REACHED_BY } from '../workflow/sessions.js';

/** How long the ESP has to answer (eSign: the signer authenticates within minutes). */
export const TXN_SECONDS = 30 * 60;

/** One document of the transaction: the prepared revision (empty signature) and what the CMS must sign. */
export interface PreparedDocument {
  readonly document_id: string;
  /** The InputHash id (1, 2, …). */
  readonly input_id: string;
  /** The current revision it was prepared on: the act applies only while it is still current. */
  readonly from_sha256: string;
  readonly prepared_sha256: string;
  readonly field_name: string;
  /** PDF names of the form fields filled in the same revision (the allow-list's form_filling). */
  readonly filled: readonly string[];
  readonly byte_range: readonly [number, number, number, number];
  readonly contents_offset: number;
  readonly contents_length: number;
  readonly previous_length: number;
  /** Hex SHA-256 of the ByteRange: the InputHash. */
  readonly digest: string;
}

export type TxnRow = EsignTransactionsTable;

export function newTxnId(): string {
  // eSign txn: the ASP's own id, echoed back; unguessable, so a response cannot be aimed at a txn by guessing.
  return `MOHAR-${randomBytes(16).toString('hex')}`;
}

export function documentsOf(row: Pick<TxnRow, 'documents'>): PreparedDocument[] {
  return JSON.parse(row.documents) as PreparedDocument[];
}

export function valuesOf(row: Pick<TxnRow, 'field_values'>): [string, string][] {
  return JSON.parse(row.field_values) as [string, string][];
}

/** How the signer was reached: the kind of the signing link the transaction was started from (audit `reached_by`). */
export async function reachedByOf(
  db: Kysely<Database>,
  row: Pick<TxnRow, 'session_token_hash'>,
): Promise<string | undefined> {
  const link = await db
    .selectFrom('signing_sessions')
    .select('kind')
    .where('token_hash', '=', row.session_token_hash)
    .executeTakeFirst();
  return link ? REACHED_BY[link.kind ?? 'session'] : undefined;
}

export async function findTxn(db: Kysely<Database>, txn: string): Promise<TxnRow | undefined> {
  return db.selectFrom('esign_transactions').selectAll().where('id', '=', txn).executeTakeFirst();
}

/**
 * Claims a pending transaction for the one response that may use it. Refuses (409 esign_txn_invalid) an
 * unknown txn, one already used (a replay) and one past its 30 minutes.
 */
export async function claimTxn(db: Kysely<Database>, txn: string, now: Date): Promise<TxnRow> {
  const row = await findTxn(db, txn);
  if (!row) {
    throw new MoharError('esign_txn_invalid', 'the eSign response names a transaction this server did not start', {
      extra: { reason: 'unknown' },
    });
  }
  if (row.used_at !== null || row.state !== 'pending') {
    throw new MoharError('esign_txn_invalid', 'this eSign transaction was already answered (a response is used once)', {
      extra: { reason: 'used' },
    });
  }
  if (row.expires_at <= iso(now)) {
    await db
      .updateTable('esign_transactions')
      .set({ state: 'failed', used_at: iso(now), error_code: 'expired', error_message: 'no answer within 30 minutes' })
      .where('id', '=', txn)
      .where('used_at', 'is', null)
      .execute();
    throw new MoharError('esign_txn_invalid', 'this eSign transaction expired (30 minutes); start again', {
      extra: { reason: 'expired' },
    });
  }
  const claimed = await db
    .updateTable('esign_transactions')
    .set({ used_at: iso(now) })
    .where('id', '=', txn)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  if (Number(claimed.numUpdatedRows) !== 1) {
    throw new MoharError('esign_txn_invalid', 'this eSign transaction was already answered (a response is used once)', {
      extra: { reason: 'used' },
    });
  }
  return { ...row, used_at: iso(now) };
}

export async function failTxn(
  db: Kysely<Database>,
  txn: string,
  error: { code: string; message: string; responseCode?: string | null },
): Promise<void> {
  await db
    .updateTable('esign_transactions')
    .set({
      state: 'failed',
      error_code: error.code.slice(0, 100),
      error_message: error.message.slice(0, 1000),
      response_code: error.responseCode ?? null,
    })
    .where('id', '=', txn)
    .execute();
}
