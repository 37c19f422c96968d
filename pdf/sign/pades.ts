/**
 * One PAdES signing act from B-B to B-LTA, over the ports: the key signs (SignatureProvider), the
 * TSA and revocation services are reached through the caller's HttpTransport.
 *   B-B   one revision: the signature (CAdES detached, no signing-time; time in /M)
 *   B-T   + a signature timestamp inside the CMS (still one revision)
 *   B-LT  + one revision with /DSS: certificates, OCSP responses and CRLs for signer and TSA chains
 *   B-LTA + one revision with a document timestamp over all of that
 * A TSA that is down or answers wrongly fails the act with tsa_unavailable: no time is ever made up.
 * Before returning, the output is checked against the input: every signature the input carried must still
 * verify with nothing after it beyond signing and validation data (self-check.ts), else pdf_write_failed.
 */
import { MoharError } from '../../common/errors.js';
import {
  addSignatureTimestamp,
  createSignedData,
  gatherValidationData,
  inspectCms,
  requestDocumentTimestamp,
} from '../cms/index.js';
import { appendDss } from './dss.js';
import { assertEarlierSignaturesKept } from './self-check.js';
import type { HttpTransport, SignatureProvider } from '../ports.js';
import type { PrepareOptions } from './prepare.js';
import { signPdf, timestampPdf, type SignedPdf } from './sign-pdf.js';

export const PADES_LEVELS = ['B-B', 'B-T', 'B-LT', 'B-LTA'] as const;
export type PadesTarget = (typeof PADES_LEVELS)[number];

export interface PadesOptions extends Omit<PrepareOptions, 'timestamp'> {
  readonly level: PadesTarget;
  /** RFC 3161 TSA; required from B-T up. */
  readonly tsaUrl?: string;
  /** Reaches the TSA, OCSP responders, CRL and caIssuers URLs; required from B-T up. */
  readonly transport?: HttpTransport;
  /** Validation data the caller already has (e.g. fetched earlier, or from the token vendor). */
  readonly validationData?: { certs?: Uint8Array[]; ocsps?: Uint8Array[]; crls?: Uint8Array[] };
}

export interface PadesResult {
  /**
   * The signed file as pieces to write one after the other. For B-B and B-T the first piece is the input itself and
   * the second the signature's revision (no copy of the file was made); for B-LT, one piece.
   */
  readonly pieces: readonly Uint8Array[];
  /** The signed file in one buffer (for B-B, B-T and B-LTA joined on first use). */
  readonly bytes: Buffer;
  readonly fieldName: string;
  readonly level: PadesTarget;
  /** Revisions appended: 1 for B-B/B-T, 2 for B-LT, 3 for B-LTA. */
  readonly revisionsAdded: number;
  /** Fields whose appearance the signature's revision re-issued for its lock (`reissueLockedAppearances`). */
  readonly reissuedFields: readonly string[];
}

function needTsa(options: PadesOptions): { url: string; transport: HttpTransport } {
  if (!options.tsaUrl || !options.transport) {
    throw new MoharError('tsa_unavailable', `PAdES ${options.level} needs a timestamp authority; none is configured`);
  }
  return { url: options.tsaUrl, transport: options.transport };
}

export async function signPades(
  bytes: Uint8Array,
  signer: SignatureProvider,
  options: PadesOptions,
): Promise<PadesResult> {
  const result = await signUnchecked(bytes, signer, options);
  // B-B and B-T: signPdf's pieces start with `bytes` themselves, untouched (issue 30); the whole file is joined
  // only if earlier signatures must be checked against it.
  assertEarlierSignaturesKept(bytes, () => result.bytes, { prefixAsserted: result.revisionsAdded === 1 });
  return result;
}

async function signUnchecked(
  bytes: Uint8Array,
  signer: SignatureProvider,
  options: PadesOptions,
): Promise<PadesResult> {
  const level = options.level;
  const tsa = level === 'B-B' ? undefined : needTsa(options);
  let cmsDer: Uint8Array | undefined;
  const signed = await signPdf(bytes, { ...options, timestamp: tsa !== undefined }, async (digest) => {
    const cms = await createSignedData({ messageDigest: digest, signer });
    cmsDer = tsa ? await addSignatureTimestamp(cms, tsa.transport, tsa.url) : cms;
    return cmsDer;
  });
  if (level === 'B-B' || level === 'B-T') {
    return fromSigned(signed, {
      fieldName: signed.fieldName,
      level,
      revisionsAdded: 1,
      reissuedFields: signed.reissuedFields,
    });
  }

  const tsaChain = inspectCms(cmsDer!).timestamp?.certificates ?? [];
  const data = await gatherValidationData({
    chain: [signer.certificate, ...signer.chain],
    tsaChain,
    transport: tsa!.transport,
    ...(options.validationData ? { extra: options.validationData } : {}),
  });
  const withDss = appendDss(signed.bytes, {
    certs: data.certs,
    ocsps: data.ocsps,
    crls: data.crls,
    vri: [{ field: signed.fieldName, certs: data.certs, ocsps: data.ocsps, crls: data.crls }],
  });
  const reissuedFields = signed.reissuedFields;
  if (level === 'B-LT') {
    return {
      pieces: [withDss.bytes],
      bytes: withDss.bytes,
      fieldName: signed.fieldName,
      level,
      revisionsAdded: 2,
      reissuedFields,
    };
  }

  const archived = await timestampPdf(
    withDss.bytes,
    async (digest) => (await requestDocumentTimestamp(tsa!.transport, tsa!.url, digest)).tokenDer,
  );
  return fromSigned(archived, { fieldName: signed.fieldName, level, revisionsAdded: 3, reissuedFields });
}

/** A result whose file is signPdf's (or timestampPdf's) pieces; `bytes` joins them when first read. */
function fromSigned(signed: SignedPdf, rest: Omit<PadesResult, 'pieces' | 'bytes'>): PadesResult {
  return {
    ...rest,
    pieces: signed.pieces,
    // An own enumerable getter: a structured clone (postMessage) or a spread reads it like a plain member.
    get bytes(): Buffer {
      return signed.bytes;
    },
  };
}
