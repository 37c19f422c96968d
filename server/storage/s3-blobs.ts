/**
 * The blob store on an S3-compatible bucket (AWS, MinIO, Garage, Ceph RGW, Cloudflare R2), shared by every server
 * instance. Only calls every one of them implements: HeadBucket, Head/Get/Put/Copy/DeleteObject, ListObjectsV2.
 *
 * Object `blobs/<sha256>` holds the bytes whose SHA-256 is its name, so an object is never overwritten with other
 * bytes. The age the blob collector asks about is the object's `stored-at` metadata: putting bytes already present
 * copies the object onto itself with a new `stored-at` (same bytes), so the collector's grace period starts over
 * (decisions §37). The listing shows only LastModified, which such a copy renews on AWS and MinIO but not on every
 * store, so storedBefore names candidates and deleteIfStoredBefore reads `stored-at` before it deletes.
 */
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { MoharError } from '../../common/errors.js';
import type { S3Settings } from '../config-blobs.js';
import { checkName, sha256Hex, SHA256_NAME, type BlobStore } from './blobs.js';

const PREFIX = 'blobs/';
const STORED_AT = 'stored-at';

/** The S3 client for the settings: plain SigV4, no checksum extensions older MinIO, Garage and R2 refuse. */
export function s3ClientFor(settings: S3Settings): S3Client {
  return new S3Client({
    region: settings.region,
    ...(settings.endpoint === undefined ? {} : { endpoint: settings.endpoint }),
    forcePathStyle: settings.forcePathStyle,
    credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // A bucket that stops answering fails the request instead of holding it (and its signer) forever.
    requestHandler: { connectionTimeout: 5_000, requestTimeout: 120_000 },
    maxAttempts: 3,
  });
}

function status(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
}

function notFound(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  return status(error) === 404 || name === 'NoSuchKey' || name === 'NotFound';
}

export class S3BlobStore implements BlobStore {
  constructor(
    private readonly client: S3Client,
    readonly bucket: string,
  ) {}

  private key(sha256: string): string {
    return `${PREFIX}${sha256}`;
  }

  async put(bytes: Uint8Array): Promise<string> {
    const sha256 = sha256Hex(bytes);
    if (await this.refresh(sha256)) return sha256;
    await this.create(sha256, bytes);
    return sha256;
  }

  /**
   * Stored again: copy the object onto itself with a new `stored-at` (the bytes stay), so the blob collector's grace
   * period starts over. False when there is no such object (then put writes it).
   */
  private async refresh(sha256: string): Promise<boolean> {
    const key = this.key(sha256);
    try {
      await this.client.send(
        new CopyObjectCommand({
          Bucket: this.bucket,
          Key: key,
          CopySource: `${this.bucket}/${key}`,
          MetadataDirective: 'REPLACE',
          Metadata: { [STORED_AT]: new Date().toISOString() },
        }),
      );
      return true;
    } catch (error) {
      if (notFound(error)) return false;
      throw error;
    }
  }

  /**
   * Writes the object only if absent (If-None-Match: *). A store that ignores the condition overwrites it, which is
   * still safe: the same name always holds the same bytes. 412 means another instance wrote it a moment ago: fresh.
   * 409 (AWS: a conditional write of the same key still in progress) cannot promise the object exists yet, so the
   * bytes are written anyway, unconditionally: the same bytes again.
   */
  private async create(sha256: string, bytes: Uint8Array): Promise<void> {
    const put = (conditional: boolean) =>
      this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: this.key(sha256),
          Body: bytes,
          ContentType: 'application/octet-stream',
          Metadata: { [STORED_AT]: new Date().toISOString() },
          ...(conditional ? { IfNoneMatch: '*' } : {}),
        }),
      );
    try {
      await put(true);
    } catch (error) {
      const code = status(error);
      if (code === 412) return;
      // Stores without conditional writes (older Ceph, older MinIO) answer 501 NotImplemented: the refresh above
      // already asked whether the object is there.
      const unsupported = code === 501 || (error as { name?: unknown }).name === 'NotImplemented';
      if (code !== 409 && !unsupported) throw error;
      await put(false);
    }
  }

  async get(sha256: string): Promise<Buffer> {
    checkName(sha256);
    let bytes: Buffer;
    try {
      const answer = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.key(sha256) }));
      bytes = Buffer.from(await answer.Body!.transformToByteArray());
    } catch (error) {
      if (notFound(error)) throw new MoharError('blob_missing', `stored bytes ${sha256} are missing`, { cause: error });
      throw error;
    }
    // The bucket is outside Mohar's hands: bytes that are not what their name says are as good as missing.
    if (sha256Hex(bytes) !== sha256) {
      throw new MoharError('blob_missing', `stored bytes ${sha256} do not match their SHA-256 (damaged in the bucket)`);
    }
    return bytes;
  }

  async has(sha256: string): Promise<boolean> {
    checkName(sha256);
    return (await this.storedAt(sha256)) !== undefined;
  }

  /** When the object was last stored, or undefined when there is none. */
  private async storedAt(sha256: string): Promise<Date | undefined> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.key(sha256) }));
      const stamped = head.Metadata?.[STORED_AT];
      return stamped !== undefined && !Number.isNaN(Date.parse(stamped)) ? new Date(stamped) : head.LastModified;
    } catch (error) {
      if (notFound(error)) return undefined;
      throw error;
    }
  }

  async *storedBefore(cutoff: Date): AsyncIterable<string> {
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: PREFIX, ContinuationToken: token }),
      );
      for (const object of page.Contents ?? []) {
        const name = object.Key?.slice(PREFIX.length) ?? '';
        if (SHA256_NAME.test(name) && object.LastModified && object.LastModified < cutoff) yield name;
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
  }

  /**
   * Looks at the object's age, then deletes it. S3 has no "delete if older than" that every store implements, so a
   * put() of the same bytes between the two calls (a few milliseconds) would be lost: that needs bytes no row named
   * for the whole grace period to be uploaded again in exactly that moment; decisions §37 weighs it.
   */
  async deleteIfStoredBefore(sha256: string, cutoff: Date): Promise<boolean> {
    checkName(sha256);
    const storedAt = await this.storedAt(sha256);
    if (storedAt === undefined || storedAt >= cutoff) return false;
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.key(sha256) }));
    return true;
  }

  async probe(): Promise<void> {
    await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
  }
}
