/**
 * Compares the blob store with the rows that name blobs, as a check after something went wrong (a full disk,
 * a crash): rows whose blob is missing, blobs whose bytes do not hash to their name (truncated), blobs no row
 * names, and temporary files of the file blob store left behind.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { sha256Hex } from '../../server/storage/blobs.js';
import type { TestServer } from './server.js';

export interface BlobIntegrity {
  readonly missing: readonly string[];
  readonly corrupt: readonly string[];
  readonly unreferenced: readonly string[];
  readonly temporaryFiles: readonly string[];
}

const HASHES = /[0-9a-f]{64}/g;

/**
 * Blob names in the columns that hold one (each must be stored), and names mentioned in JSON texts (act details,
 * mail attachments), which keep a blob alive but may also be other hashes (a certificate's, a document digest).
 */
async function blobNames(server: TestServer): Promise<{ inColumns: Set<string>; mentioned: Set<string> }> {
  const db = server.ctx.db;
  const inColumns = new Set<string>();
  const mentioned = new Set<string>();
  const column = (value: string | null) => {
    if (value) inColumns.add(value);
  };
  for (const row of await db.selectFrom('documents').select('sha256').execute()) column(row.sha256);
  for (const row of await db.selectFrom('document_revisions').select('sha256').execute()) column(row.sha256);
  for (const row of await db.selectFrom('envelope_documents').select('current_sha256').execute()) {
    column(row.current_sha256);
  }
  for (const row of await db.selectFrom('envelopes').select('certificate_sha256').execute()) {
    column(row.certificate_sha256);
  }
  const texts = [
    ...(await db.selectFrom('recipients').select(['prepared_sha256', 'act_details']).execute()).flatMap((row) => {
      column(row.prepared_sha256);
      return [row.act_details];
    }),
    ...(await db.selectFrom('outbox_mail').select('attachments').execute()).map((row) => row.attachments),
  ];
  for (const text of texts) if (text) for (const match of text.matchAll(HASHES)) mentioned.add(match[0]);
  return { inColumns, mentioned };
}

/** Every file under `directory` whose name is not a SHA-256 (writes in progress, or left behind). */
async function temporaryFiles(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile() && !/^[0-9a-f]{64}$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}

export async function blobIntegrity(server: TestServer): Promise<BlobIntegrity> {
  const { inColumns, mentioned } = await blobNames(server);
  const stored = new Set<string>();
  const corrupt: string[] = [];
  // Everything stored before a time in the future is everything stored.
  for await (const name of server.ctx.blobs.storedBefore(new Date(Date.now() + 24 * 60 * 60 * 1000))) {
    stored.add(name);
    if (sha256Hex(await server.ctx.blobs.get(name)) !== name) corrupt.push(name);
  }
  return {
    missing: [...inColumns].filter((name) => !stored.has(name)),
    corrupt,
    unreferenced: [...stored].filter((name) => !inColumns.has(name) && !mentioned.has(name)),
    temporaryFiles:
      server.ctx.config.blobStore === 'file' ? await temporaryFiles(join(server.ctx.config.dataDir, 'blobs')) : [],
  };
}
