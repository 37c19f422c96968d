/** The blob store a setting names (MOHAR_BLOB_STORE), for the server and for `mohar blobs migrate`. */
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import type { BlobStoreKind, S3Settings } from '../config-blobs.js';
import { DatabaseBlobStore, FileBlobStore, type BlobStore } from './blobs.js';
import { S3BlobStore, s3ClientFor } from './s3-blobs.js';
import type { Database } from './schema.js';

export interface BlobStoreSources {
  readonly db: Kysely<Database>;
  readonly dataDir: string;
  readonly s3: S3Settings | undefined;
}

export function openBlobStore(kind: BlobStoreKind, sources: BlobStoreSources): BlobStore {
  switch (kind) {
    case 'file':
      return new FileBlobStore(join(sources.dataDir, 'blobs'));
    case 'database':
      return new DatabaseBlobStore(sources.db);
    case 's3':
      // config-blobs.ts requires the settings with MOHAR_BLOB_STORE=s3; `blobs migrate --to s3` checks before.
      if (sources.s3 === undefined) throw new Error('the S3 blob store needs MOHAR_S3_BUCKET and its keys');
      return new S3BlobStore(s3ClientFor(sources.s3), sources.s3.bucket);
  }
}
