/**
 * The Idempotency-Key's done row inside an operation's own transaction (bulk sends, templates): the effect and
 * its answer commit together, so a crash leaves both or neither (issue 33).
 */
import type { Kysely } from 'kysely';
import { isUniqueViolation } from '../../storage/connect.js';
import type { Database } from '../../storage/schema.js';
import { keyRow, KeyTakenMeanwhile, type KeyInCommit } from './idempotency.js';

/**
 * Call first in the transaction, so that a key taken by a concurrent request (KeyTakenMeanwhile; on PostgreSQL
 * after waiting for that request's commit) rolls back before anything else is written.
 */
export async function insertKeyInTransaction(
  trx: Kysely<Database>,
  claim: KeyInCommit,
  answer: unknown,
  now: Date,
): Promise<void> {
  try {
    await trx
      .insertInto('idempotency_keys')
      .values(keyRow(claim, claim.serialize(answer), now))
      .execute();
  } catch (error) {
    if (isUniqueViolation(error)) throw new KeyTakenMeanwhile(claim.key);
    throw error;
  }
}
