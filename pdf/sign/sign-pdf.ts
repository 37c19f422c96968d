/**
 * signPdf: prepare -> the caller's signing callback -> embed, in one call, with the byte-prefix
 * assertion. The callback receives the SHA-256 digest of the ByteRange and returns the DER CMS
 * SignedData (detached, built in pdf/cms with that digest as message-digest); a callback that
 * needs the signed bytes themselves gets them from the second argument (byteRangeData).
 * timestampPdf does the same for a document timestamp (the callback returns a TimeStampToken).
 */
import { assertPrefix } from '../write/incremental.js';
import {
  embedSignatureInPlace,
  prepareDocumentTimestamp,
  prepareSignature,
  type DocumentTimestampOptions,
  type PrepareOptions,
  type PreparedSignature,
} from './prepare.js';

export type SignCallback = (digest: Uint8Array, prepared: PreparedSignature) => Promise<Uint8Array>;

export interface SignedPdf {
  /** The signed file: the input bytes followed by exactly one new revision. */
  readonly bytes: Buffer;
  /** Fully qualified name of the signature field that was signed. */
  readonly fieldName: string;
  readonly byteRange: readonly [number, number, number, number];
  readonly digest: Uint8Array;
  /** Fields whose appearance the revision re-issued for the lock (PrepareOptions.reissueLockedAppearances). */
  readonly reissuedFields: readonly string[];
}

export async function signPdf(bytes: Uint8Array, options: PrepareOptions, sign: SignCallback): Promise<SignedPdf> {
  const prepared = prepareSignature(bytes, options);
  return complete(bytes, prepared, await sign(prepared.digest, prepared));
}

export async function timestampPdf(
  bytes: Uint8Array,
  stamp: SignCallback,
  options: DocumentTimestampOptions = {},
): Promise<SignedPdf> {
  const prepared = prepareDocumentTimestamp(bytes, options);
  return complete(bytes, prepared, await stamp(prepared.digest, prepared));
}

function complete(original: Uint8Array, prepared: PreparedSignature, der: Uint8Array): SignedPdf {
  const signed = embedSignatureInPlace(prepared, der);
  assertPrefix(original, signed);
  return {
    bytes: signed,
    fieldName: prepared.fieldName,
    byteRange: prepared.byteRange,
    digest: prepared.digest,
    reissuedFields: prepared.reissuedFields ?? [],
  };
}
