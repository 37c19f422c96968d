/**
 * Which blobs the rows of a database refer to: what the blob collector must keep (blob-gc.ts), what a backup must
 * carry (server/backup) and what `mohar blobs migrate` copies. Two kinds: `named` blobs sit in a column that holds
 * exactly one blob name, and the row is broken without them; `mentioned` ones are 64-hex strings inside JSON texts
 * (signing details, mail attachments, template definitions), which may name a blob or be some other digest, so only
 * a present one counts.
 *
 * Retention (migration 0024): the rows of an envelope whose documents were purged (envelopes.purged_at) keep their
 * SHA-256 as a record but are no references any more, nor is a workspace document marked purged, unless an envelope
 * not purged attached it meanwhile. The certificate of completion (envelopes.certificate_sha256) always is one.
 * Template versions name their documents by SHA-256 in their definition: a reference, so a PDF a template shares
 * with a purged envelope stays.
 */
import type { ExpressionBuilder, Kysely } from 'kysely';
import type { Database } from './schema.js';

const HASHES = /[0-9a-f]{64}/g;

export interface BlobReferences {
  readonly named: ReadonlySet<string>;
  readonly mentioned: ReadonlySet<string>;
}

/** An envelope whose documents are still kept (not purged by retention). */
export const LIVE_ENVELOPE = (eb: ExpressionBuilder<Database, 'envelopes'>) => eb('envelopes.purged_at', 'is', null);

/** A workspace document's bytes are needed: it is not purged, or an envelope not purged uses it. */
export function documentsInUse(db: Kysely<Database>) {
  return db
    .selectFrom('documents')
    .select('documents.sha256 as v')
    .where((eb) =>
      eb.or([
        eb('documents.purged_at', 'is', null),
        eb.exists(
          eb
            .selectFrom('envelope_documents')
            .innerJoin('envelopes', 'envelopes.id', 'envelope_documents.envelope_id')
            .select('envelopes.id')
            .whereRef('envelope_documents.document_id', '=', 'documents.id')
            .where('envelopes.purged_at', 'is', null),
        ),
      ]),
    );
}

/** Mails of no envelope, or of one not purged (a purged envelope's completion mail no longer keeps its PDFs). */
export function outboxInUse(db: Kysely<Database>) {
  return db
    .selectFrom('outbox_mail')
    .leftJoin('envelopes', 'envelopes.id', 'outbox_mail.envelope_id')
    .where((eb) => eb.or([eb('outbox_mail.envelope_id', 'is', null), eb('envelopes.purged_at', 'is', null)]));
}

/** Every blob name referenced anywhere: columns that hold one, and JSON texts that may name some. */
export async function blobReferences(db: Kysely<Database>): Promise<BlobReferences> {
  const named = new Set<string>();
  const mentioned = new Set<string>();
  const name = (value: string | null | undefined) => {
    if (value) named.add(value);
  };
  const mention = (value: string | null | undefined) => {
    if (value) for (const match of value.matchAll(HASHES)) mentioned.add(match[0]);
  };
  for (const row of await documentsInUse(db).execute()) name(row.v);
  for (const row of await db
    .selectFrom('envelope_documents')
    .innerJoin('envelopes', 'envelopes.id', 'envelope_documents.envelope_id')
    .select('envelope_documents.current_sha256 as v')
    .where('envelope_documents.current_sha256', 'is not', null)
    .where(LIVE_ENVELOPE)
    .execute()) {
    name(row.v);
  }
  for (const row of await db
    .selectFrom('document_revisions')
    .innerJoin('envelopes', 'envelopes.id', 'document_revisions.envelope_id')
    .select('document_revisions.sha256 as v')
    .where(LIVE_ENVELOPE)
    .execute()) {
    name(row.v);
  }
  for (const row of await db
    .selectFrom('envelopes')
    .select('certificate_sha256 as v')
    .where('certificate_sha256', 'is not', null)
    .execute()) {
    name(row.v);
  }
  for (const row of await db
    .selectFrom('recipients')
    .innerJoin('envelopes', 'envelopes.id', 'recipients.envelope_id')
    .select(['recipients.prepared_sha256', 'recipients.act_details'])
    .where(LIVE_ENVELOPE)
    .execute()) {
    name(row.prepared_sha256);
    mention(row.act_details);
  }
  for (const row of await outboxInUse(db).select('outbox_mail.attachments as v').execute()) mention(row.v);
  for (const row of await db.selectFrom('template_versions').select('definition as v').execute()) mention(row.v);
  for (const sha256 of named) mentioned.delete(sha256);
  return { named, mentioned };
}
