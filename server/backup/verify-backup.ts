/**
 * `mohar backup verify`: re-hash every blob and check every envelope's audit chain, either of a backup directory
 * (against its manifest) or of the configured installation itself (`--live`, SQLite or PostgreSQL: every blob a
 * row names, from whichever blob store the installation uses). Every problem is reported, not only the first.
 */
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { isMoharError } from '../../common/errors.js';
import { auditedEnvelopeIds, listAudit, verifyAuditChain } from '../audit/index.js';
import { blobReferences } from '../storage/blob-references.js';
import { blobFilePath, sha256Hex, type BlobStore } from '../storage/blobs.js';
import type { Database } from '../storage/schema.js';
import { hashFile } from './files.js';
import { BLOBS_DIR, DATABASE_FILE, readManifest, type BackupManifest, type FileEntry } from './manifest.js';
import { openSqliteFile } from './sqlite-file.js';

export interface VerifyReport {
  readonly blobs: number;
  readonly envelopes: number;
  readonly problems: readonly string[];
}

/** The database copy and every blob of a backup against the manifest's sizes and hashes. */
export async function checkBackupFiles(directory: string, manifest: BackupManifest): Promise<string[]> {
  const problems: string[] = [];
  const check = async (label: string, path: string, expected: FileEntry) => {
    const actual = await hashFile(path);
    if (actual === undefined) problems.push(`${label} is missing`);
    else if (actual.size !== expected.size || actual.sha256 !== expected.sha256) {
      problems.push(
        `${label} has changed: ${actual.size} bytes with SHA-256 ${actual.sha256}, expected ${expected.size} bytes with ${expected.sha256}`,
      );
    }
  };
  await check(`the database copy ${DATABASE_FILE}`, join(directory, DATABASE_FILE), manifest.database);
  for (const blob of manifest.blobs) {
    await check(`blob ${blob.sha256}`, blobFilePath(join(directory, BLOBS_DIR), blob.sha256), blob);
  }
  return problems;
}

/** Every envelope's audit chain; a problem line per broken one. */
async function checkAuditChains(db: Kysely<Database>, problems: string[]): Promise<number> {
  let envelopes = 0;
  for (let after: string | undefined; ;) {
    const ids = await auditedEnvelopeIds(db, { limit: 200, ...(after === undefined ? {} : { after }) });
    if (ids.length === 0) return envelopes;
    for (const id of ids) {
      const report = verifyAuditChain(await listAudit(db, id));
      envelopes++;
      if (!report.ok) {
        problems.push(`audit chain of envelope ${id} broken at seq ${report.firstBadSeq}: ${report.message}`);
      }
    }
    after = ids.at(-1);
  }
}

export async function verifyBackupDirectory(directory: string): Promise<VerifyReport> {
  const manifest = await readManifest(directory);
  const problems = await checkBackupFiles(directory, manifest);
  if (problems.some((p) => p.startsWith(`the database copy`))) {
    return { blobs: manifest.blobs.length, envelopes: 0, problems };
  }
  const copy = openSqliteFile(join(directory, DATABASE_FILE), { readonly: true });
  try {
    const listed = new Set(manifest.blobs.map((b) => b.sha256));
    for (const sha256 of (await blobReferences(copy.db)).named) {
      if (!listed.has(sha256)) problems.push(`blob ${sha256} is named by the database but not in the backup`);
    }
    const envelopes = await checkAuditChains(copy.db, problems);
    return { blobs: manifest.blobs.length, envelopes, problems };
  } finally {
    await copy.close();
  }
}

/** The running installation: every blob a row names (or mentions and the store has), re-hashed; every chain. */
export async function verifyLive(db: Kysely<Database>, blobs: BlobStore): Promise<VerifyReport> {
  const problems: string[] = [];
  const references = await blobReferences(db);
  let checked = 0;
  const rehash = async (sha256: string, required: boolean) => {
    let bytes: Buffer;
    try {
      bytes = await blobs.get(sha256);
    } catch (error) {
      if (!isMoharError(error, 'blob_missing')) throw error;
      if (required) problems.push(`blob ${sha256} is named by the database but missing from the blob store`);
      return;
    }
    checked++;
    const actual = sha256Hex(bytes);
    if (actual !== sha256) problems.push(`blob ${sha256} has changed: its bytes hash to ${actual}`);
  };
  for (const sha256 of [...references.named].sort()) await rehash(sha256, true);
  for (const sha256 of [...references.mentioned].sort()) await rehash(sha256, false);
  const envelopes = await checkAuditChains(db, problems);
  return { blobs: checked, envelopes, problems };
}
