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

export interface OpenedBlobStore {
  readonly blobs: BlobStore;
  /** Lets go of what the store holds open (the S3 client's kept-alive connections, which keep a CLI process alive). */
  close(): void;
}

export function openBlobStore(kind: BlobStoreKind, sources: BlobStoreSources): OpenedBlobStore {
  switch (kind) {
    case 'file':
      return { blobs: new FileBlobStore(join(sources.dataDir, 'blobs')), close: () => undefined };
    case 'database':
      return { blobs: new DatabaseBlobStore(sources.db), close: () => undefined };
    case 's3': {
      // config-blobs.ts requires the settings with MOHAR_BLOB_STORE=s3; `blobs migrate --to s3` checks before.
      if (sources.s3 === undefined) throw new Error('the S3 blob store needs MOHAR_S3_BUCKET and its keys');
      const client = s3ClientFor(sources.s3);
      return { blobs: new S3BlobStore(client, sources.s3.bucket), close: () => client.destroy() };
    }
  }
}
