/**
 * Which blobs the rows of a database refer to: what the blob collector must keep (blob-gc.ts) and what a backup
 * must carry (server/backup). Two kinds: `named` blobs sit in a column that holds exactly one blob name, and the
 * row is broken without them; `mentioned` ones are 64-hex strings inside JSON texts (signing details, mail
 * attachments), which may name a blob or be some other digest, so only a present one counts.
 */
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

const HASHES = /[0-9a-f]{64}/g;

export interface BlobReferences {
  readonly named: ReadonlySet<string>;
  readonly mentioned: ReadonlySet<string>;
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
  for (const row of await db.selectFrom('documents').select('sha256 as v').execute()) name(row.v);
  for (const row of await db
    .selectFrom('envelope_documents')
    .select('current_sha256 as v')
    .where('current_sha256', 'is not', null)
    .execute()) {
    name(row.v);
  }
  for (const row of await db.selectFrom('document_revisions').select('sha256 as v').execute()) name(row.v);
  for (const row of await db
    .selectFrom('envelopes')
    .select('certificate_sha256 as v')
    .where('certificate_sha256', 'is not', null)
    .execute()) {
    name(row.v);
  }
  for (const row of await db.selectFrom('recipients').select(['prepared_sha256', 'act_details']).execute()) {
    name(row.prepared_sha256);
    mention(row.act_details);
  }
  for (const row of await db.selectFrom('outbox_mail').select('attachments as v').execute()) mention(row.v);
  for (const sha256 of named) mentioned.delete(sha256);
  return { named, mentioned };
}
