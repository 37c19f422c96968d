/**
 * signPdf: prepare -> the caller's signing callback -> embed, in one call. The callback receives the SHA-256
 * digest of the ByteRange and returns the DER CMS SignedData (detached, built in pdf/cms with that digest as
 * message-digest); a callback that needs the signed bytes themselves gets them from the second argument
 * (byteRangeData). timestampPdf does the same for a document timestamp (the callback returns a TimeStampToken).
 *
 * The result is the input followed by one new revision, kept as those two pieces (issue 30): the input is never
 * copied or written to (the placeholders and the signature go into the revision, which prepare checks), so it is
 * the signed file's prefix by construction and a large file costs one SHA-256 pass, not a copy and a comparison
 * as well. Write `pieces` one after the other; `bytes` joins them on first use.
 */
import {
  embedSignatureInRevision,
  prepareDocumentTimestampPieces,
  prepareSignaturePieces,
  type DocumentTimestampOptions,
  type PrepareOptions,
  type PreparedPieces,
  type PreparedSignature,
} from './prepare.js';

export type SignCallback = (digest: Uint8Array, prepared: PreparedSignature) => Promise<Uint8Array>;

export interface SignedPdf {
  /** The signed file as written: the input bytes themselves, then the new revision. */
  readonly pieces: readonly [Uint8Array, Buffer];
  /** The signed file in one buffer: the input bytes followed by exactly one new revision (joined on first use). */
  readonly bytes: Buffer;
  /** Fully qualified name of the signature field that was signed. */
  readonly fieldName: string;
  readonly byteRange: readonly [number, number, number, number];
  readonly digest: Uint8Array;
  /** Fields whose appearance the revision re-issued for the lock (PrepareOptions.reissueLockedAppearances). */
  readonly reissuedFields: readonly string[];
}

export async function signPdf(bytes: Uint8Array, options: PrepareOptions, sign: SignCallback): Promise<SignedPdf> {
  const prepared = prepareSignaturePieces(bytes, options);
  return complete(prepared, await sign(prepared.digest, joinedLater(prepared)));
}

export async function timestampPdf(
  bytes: Uint8Array,
  stamp: SignCallback,
  options: DocumentTimestampOptions = {},
): Promise<SignedPdf> {
  const prepared = prepareDocumentTimestampPieces(bytes, options);
  return complete(prepared, await stamp(prepared.digest, joinedLater(prepared)));
}

function complete(prepared: PreparedPieces, der: Uint8Array): SignedPdf {
  embedSignatureInRevision(prepared, der);
  const { original, revision } = prepared;
  const whole = joinOnce(original, revision);
  return {
    pieces: [original, revision],
    // An own enumerable getter: a structured clone (postMessage) or a spread reads it like a plain member.
    get bytes(): Buffer {
      return whole();
    },
    fieldName: prepared.fieldName,
    byteRange: prepared.byteRange,
    digest: prepared.digest,
    reissuedFields: prepared.reissuedFields ?? [],
  };
}

/** The prepared signature as the callback sees it: the whole file only if it asks for it. */
function joinedLater(prepared: PreparedPieces): PreparedSignature {
  const { original, revision, ...rest } = prepared;
  const whole = joinOnce(original, revision);
  return {
    ...rest,
    get bytes(): Buffer {
      return whole();
    },
  };
}

/** The two pieces as one buffer, made on the first call and kept. */
function joinOnce(original: Uint8Array, revision: Buffer): () => Buffer {
  let joined: Buffer | undefined;
  return () => {
    joined ??= Buffer.concat([Buffer.from(original.buffer, original.byteOffset, original.byteLength), revision]);
    return joined;
  };
}
