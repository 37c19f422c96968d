/**
 * An S3 server for tests: s3rver (an S3 implementation over a directory, from the npm registry) on a random loopback
 * port and a temporary directory, with one bucket. Mohar's S3 blob store talks to it like to any other S3 endpoint.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { S3Settings } from '../../server/config-blobs.js';

/** The part of s3rver's API the tests use (it ships no types). */
interface S3rverServer {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
type S3rverClass = new (options: Record<string, unknown>) => S3rverServer;

const S3rver = createRequire(import.meta.url)('s3rver') as S3rverClass;

/** s3rver's fixed credentials: it checks the SigV4 signature with them. */
const ACCESS_KEY = 'S3RVER';

export interface TestS3 {
  readonly settings: S3Settings;
  /** The same settings as MOHAR_* environment variables (for `mohar serve` and the CLI). */
  readonly env: Record<string, string>;
  /** The directory s3rver keeps the objects in (to damage one in a test). */
  readonly directory: string;
  close(): Promise<void>;
}

export async function startTestS3(bucket = 'mohar-test'): Promise<TestS3> {
  const directory = await mkdtemp(join(tmpdir(), 'mohar-s3-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  const settings: S3Settings = {
    endpoint: `http://127.0.0.1:${port}`,
    region: 'us-east-1',
    bucket,
    accessKeyId: ACCESS_KEY,
    secretAccessKey: ACCESS_KEY,
    forcePathStyle: true,
  };
  return {
    settings,
    env: {
      MOHAR_BLOB_STORE: 's3',
      MOHAR_S3_ENDPOINT: settings.endpoint!,
      MOHAR_S3_REGION: settings.region,
      MOHAR_S3_BUCKET: bucket,
      MOHAR_S3_ACCESS_KEY_ID: ACCESS_KEY,
      MOHAR_S3_SECRET_ACCESS_KEY: ACCESS_KEY,
      MOHAR_S3_FORCE_PATH_STYLE: '1',
    },
    directory,
    async close() {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
