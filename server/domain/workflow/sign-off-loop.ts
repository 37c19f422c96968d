/**
 * A PAdES B-B / B-T signature by the installation seal whose PDF work runs in the worker pool: parsing the
 * current revision, filling the signer's values, decoding (and, above 4 megapixels, downscaling) the
 * signature image and writing the revision with its placeholder all happen in pdf-tasks.ts
 * `prepareSignature`, under the pool's memory and time caps. Only the seal's signature over the digest
 * (and the TSA round trip) stays here: it is small, fixed work and the key never leaves this thread.
 */
import {
  addSignatureTimestamp,
  assertPrefix,
  createSignedData,
  embedSignature,
  type PadesOptions,
  type PadesTarget,
  type PreparedSignature,
  type PrepareOptions,
  type SignatureProvider,
} from '../../../pdf/index.js';
import { MoharError } from '../../../common/errors.js';
import type { Context } from '../context.js';

export interface OffLoopSignature {
  readonly bytes: Buffer;
  readonly fieldName: string;
  readonly level: PadesTarget;
  /** The embedded signature image was larger than 4 megapixels and was downscaled. */
  readonly imageDownscaled: boolean;
  /** Fields whose appearance the revision re-issued for its lock (the act's guard must allow filling them). */
  readonly reissuedFields: readonly string[];
}

/** The options prepareSignature reads (the transport, a function, could not cross to the worker anyway). */
export function prepareOptionsOf(options: PadesOptions, timestamp: boolean): PrepareOptions {
  const picked: PrepareOptions = { field: options.field, signingTime: options.signingTime, timestamp };
  const optional = [
    'appearance',
    'reserve',
    'formValues',
    'imageFields',
    'timeZoneOffsetMinutes',
    'name',
    'reason',
    'location',
    'contactInfo',
    'certify',
    'lock',
    'reissueLockedAppearances',
  ] as const;
  return Object.assign(
    picked,
    Object.fromEntries(optional.filter((k) => options[k] !== undefined).map((k) => [k, options[k]])),
  );
}

/** The TSA of a B-T signature (checked), undefined for B-B. */
export function timestampAuthority(
  options: Pick<PadesOptions, 'level' | 'tsaUrl' | 'transport'>,
): Pick<PadesOptions, 'tsaUrl' | 'transport'> | undefined {
  if (options.level !== 'B-B' && options.level !== 'B-T') {
    throw new Error(`the seal signs off the loop at B-B or B-T, not ${options.level}`);
  }
  if (options.level === 'B-B') return undefined;
  if (!options.tsaUrl || !options.transport) {
    throw new MoharError('tsa_unavailable', 'PAdES B-T needs a timestamp authority; none is configured');
  }
  return options;
}

/**
 * The part that stays on this thread: the seal's CMS over the digest the worker took (plus the TSA round
 * trip), embedded into the prepared revision. `prior` are the bytes the worker appended to.
 */
export async function sealPrepared(
  prior: Uint8Array,
  fromWorker: PreparedSignature,
  seal: SignatureProvider,
  tsa: Pick<PadesOptions, 'tsaUrl' | 'transport'> | undefined,
): Promise<Buffer> {
  // Structured clone turned the Buffer into a Uint8Array: view it as a Buffer again (no copy).
  const prepared: PreparedSignature = {
    ...fromWorker,
    bytes: Buffer.from(fromWorker.bytes.buffer, fromWorker.bytes.byteOffset, fromWorker.bytes.byteLength),
  };
  const cms = await createSignedData({ messageDigest: prepared.digest, signer: seal });
  const der = tsa ? await addSignatureTimestamp(cms, tsa.transport!, tsa.tsaUrl!) : cms;
  // embedSignature re-hashes the ByteRange: the bytes came back from another thread, so check they are what was
  // digested.
  const signed = embedSignature(prepared, der);
  assertPrefix(prior, signed);
  return signed;
}

export async function signPadesOffLoop(
  ctx: Context,
  bytes: Uint8Array,
  seal: SignatureProvider,
  options: PadesOptions,
): Promise<OffLoopSignature> {
  const tsa = timestampAuthority(options);
  const { prepared, image } = await ctx.pdf.run('prepareSignature', {
    bytes,
    options: prepareOptionsOf(options, tsa !== undefined),
  });
  const signed = await sealPrepared(bytes, prepared, seal, tsa);
  return {
    bytes: signed,
    fieldName: prepared.fieldName,
    level: options.level,
    imageDownscaled: image?.downscaled ?? false,
    reissuedFields: prepared.reissuedFields ?? [],
  };
}
