/**
 * The one commit of a signer act that writes into the documents (an electronic signature or approval, a USB DSC
 * upload, an Aadhaar eSign): in one transaction, lock the actors, append the act's revisions, store the values on
 * the field rows, and record the act. Each method judges its bytes before this (decision 28 for the lock; decision
 * 45 for why there is one copy: the Aadhaar path had its own, which read the actors without the lock and wrote the
 * client details by hand, dropping `reached_by`).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.js';
import type { Context } from '../context.js';
import { appendRevisions, type AppendedRevision } from '../documents/append-revisions.js';
import { clientDetails, lockActors, recordAct, type ClientInfo } from './act-context.js';

/** The revisions of one document, built on its bytes `from`. */
export interface DocumentRevisions {
  readonly documentId: string;
  readonly from: string;
  readonly revisions: readonly AppendedRevision[];
}

/** What the act records about itself: its status, and the audit details (method first, then the client's). */
export interface ActRecord {
  readonly status: 'signed' | 'approved' | 'reviewed';
  readonly method: string;
  readonly client: ClientInfo;
  /** The method's own details (certificate, consent time, PAdES level…), given the commit's time. */
  readonly details: (at: string) => Record<string, unknown>;
}

export interface ActCommit {
  readonly envelopeId: string;
  readonly recipientId: string;
  readonly documents: readonly DocumentRevisions[];
  /** Field id to value: stored on the field rows so later recipients see them. */
  readonly values: Iterable<readonly [string, string]>;
  readonly record: ActRecord;
  readonly at: string;
  /** Thrown (rolling everything back) when a document is no longer at `from`: a parallel act committed first. */
  readonly stale: () => Error;
  /** Writes of this method that belong to the act's commit (a DSC's validation data). */
  readonly alongside?: (trx: Kysely<Database>) => Promise<void>;
}

/** Commits the act; returns true when every actor has finished (completion was enqueued with it). */
export function commitAct(ctx: Context, commit: ActCommit): Promise<boolean> {
  const { envelopeId, recipientId, record, at } = commit;
  return ctx.db.transaction().execute(async (trx) => {
    // Locked first on PostgreSQL: a decline or another recipient's act racing this one waits for it, or this one
    // waits and then routes on what that act committed (read unlocked, the last two acts each saw the other pending).
    const actors = await lockActors(ctx, trx, envelopeId, recipientId);
    for (const doc of commit.documents) {
      const appended = await appendRevisions(trx, {
        envelopeId,
        documentId: doc.documentId,
        from: doc.from,
        revisions: doc.revisions,
        recipientId,
        at,
      });
      // Thrown, not returned: an earlier document of this act may already have moved in this transaction.
      if (!appended) throw commit.stale();
    }
    for (const [fieldId, value] of commit.values) {
      await trx.updateTable('fields').set({ value }).where('id', '=', fieldId).execute();
    }
    const finished = await recordAct(
      ctx,
      trx,
      actors.envelope,
      actors.recipients,
      actors.recipient,
      record.status,
      { method: record.method, ...clientDetails(record.client), ...record.details(at) },
      at,
    );
    await commit.alongside?.(trx);
    return finished;
  });
}
