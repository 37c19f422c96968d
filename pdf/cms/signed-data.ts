/**
 * Detached CAdES / PAdES B-B CMS SignedData over a message digest (SHA-256 of the PDF ByteRange).
 *
 * Signed attributes, exactly: content-type (id-data), message-digest and ESS signing-certificate-v2
 * (SHA-256 of the signer certificate plus issuerSerial). No signing-time: PAdES puts the claimed
 * time in the signature dictionary's /M. The attributes are DER-encoded as a SET (members sorted)
 * and that encoding is what the SignatureProvider signs; the SignerInfo carries the same bytes
 * under the [0] IMPLICIT tag.
 *
 * Two ways in: `createSignedData` runs the whole thing with a SignatureProvider; the pair
 * `buildSignedAttributes` / `assembleSignedData` serves "prepare, hash, inject" flows where the
 * signature is made elsewhere (a remote signer, a browser round trip).
 */
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { MoharError } from '../../common/errors.js';
import type { SignatureProvider } from '../ports.js';
import { childrenOf, concatBytes, equalBytes, octets, oid, readTlv, seq, set, sortDerSet, tlv } from './der.js';
import { OID } from './oids.js';
import { verifySignature } from './verify.js';
import { certInfo, sha256, type CertInfo } from './x509.js';

export type KeyType = 'RSA' | 'EC';

const essCache = new WeakMap<CertInfo, Uint8Array>();

/**
 * `SigningCertificateV2 ::= SEQUENCE { certs SEQUENCE OF ESSCertIDv2 }` for one certificate (SHA-256, DEFAULT so
 * omitted).
 */
export function signingCertificateV2(certificate: Uint8Array): Uint8Array {
  const c = certInfo(certificate);
  // The same for every signature of one certificate (the seal signs thousands): built once per certificate.
  const hit = essCache.get(c);
  if (hit) return hit;
  const issuerSerial = seq(seq(tlv(0xa4, c.issuerDer)), tlv(0x02, c.serial));
  const essCertIdV2 = seq(octets(sha256(c.der)), issuerSerial);
  const der = seq(seq(essCertIdV2));
  essCache.set(c, der);
  return der;
}

/** The attribute types and the content type, encoded once. */
const ATTRIBUTE_OIDS = {
  contentType: oid(OID.contentType),
  messageDigest: oid(OID.messageDigest),
  signingCertificateV2: oid(OID.signingCertificateV2),
  data: oid(OID.data),
} as const;

function attribute(type: keyof typeof ATTRIBUTE_OIDS, value: Uint8Array): Uint8Array {
  return seq(ATTRIBUTE_OIDS[type], set(value));
}

/**
 * The DER `SET OF Attribute` to be signed: content-type, message-digest, signing-certificate-v2.
 * `messageDigest` is the SHA-256 of the signed content (32 bytes).
 */
export function buildSignedAttributes(options: { messageDigest: Uint8Array; certificate: Uint8Array }): Uint8Array {
  if (options.messageDigest.length !== 32) throw new RangeError('messageDigest must be a SHA-256 digest (32 bytes)');
  const attrs = [
    attribute('contentType', ATTRIBUTE_OIDS.data),
    attribute('messageDigest', octets(options.messageDigest)),
    attribute('signingCertificateV2', signingCertificateV2(options.certificate)),
  ];
  return tlv(0x31, ...sortDerSet(attrs));
}

function keyTypeOf(cert: CertInfo): KeyType {
  const t = cert.publicKey.asymmetricKeyType;
  if (t === 'rsa') return 'RSA';
  if (t === 'ec') return 'EC';
  throw new MoharError('signing_key_invalid', `unsupported signer key type ${t ?? 'unknown'} (RSA or EC only)`);
}

function signatureAlgorithm(keyType: KeyType): pkijs.AlgorithmIdentifier {
  return keyType === 'RSA'
    ? new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha256WithRSAEncryption, algorithmParams: new asn1js.Null() })
    : new pkijs.AlgorithmIdentifier({ algorithmId: OID.ecdsaWithSHA256 });
}

/** DER of the AlgorithmIdentifiers the SignerInfo names (fixed bytes, encoded once). */
const DER = {
  sha256: seq(oid(OID.sha256)),
  RSA: seq(oid(OID.sha256WithRSAEncryption), Uint8Array.of(0x05, 0x00)),
  EC: seq(oid(OID.ecdsaWithSHA256)),
  version1: Uint8Array.of(0x02, 0x01, 0x01),
  signedData: oid(OID.signedData),
  encapData: seq(oid(OID.data)),
} as const;

const CURVE_BYTES: Readonly<Record<string, number>> = { prime256v1: 32, secp384r1: 48, secp521r1: 66 };

/** `SEQUENCE { INTEGER, INTEGER }` filling all of `bytes` (an ECDSA-Sig-Value), read without asn1js. */
function isDerSequenceOfTwoIntegers(bytes: Uint8Array): boolean {
  try {
    const top = readTlv(bytes, 0);
    if (top.tag !== 0x30 || top.end !== bytes.length) return false;
    const parts = childrenOf(bytes, top);
    return parts.length === 2 && parts.every((p) => p.tag === 0x02);
  } catch {
    return false;
  }
}

/** Accepts a DER ECDSA-Sig-Value, or converts a raw r||s of the curve's size to DER. */
function normalizeEcdsaSignature(signature: Uint8Array, cert: CertInfo): Uint8Array {
  if (isDerSequenceOfTwoIntegers(signature)) return signature;
  const curve = cert.publicKey.asymmetricKeyDetails?.namedCurve;
  const size = curve === undefined ? undefined : CURVE_BYTES[curve];
  if (size !== undefined && signature.length === 2 * size) {
    const int = (b: Uint8Array): Uint8Array => {
      let i = 0;
      while (i < b.length - 1 && b[i] === 0) i++;
      const t = b.subarray(i);
      return tlv(0x02, (t[0]! & 0x80) !== 0 ? concatBytes(Uint8Array.of(0), t) : t);
    };
    return seq(int(signature.subarray(0, size)), int(signature.subarray(size)));
  }
  return signature;
}

export interface AssembleOptions {
  /** The DER SET returned by buildSignedAttributes (exactly the bytes that were signed). */
  readonly signedAttributes: Uint8Array;
  /** RSA PKCS#1 v1.5 signature value, or ECDSA-Sig-Value DER (raw r||s is converted). */
  readonly signature: Uint8Array;
  readonly certificate: Uint8Array;
  readonly chain?: readonly Uint8Array[];
}

/**
 * Puts a SignedData ContentInfo together around an externally made signature. The signature is
 * checked against the certificate's public key: a mismatch (wrong key on a token, wrong
 * certificate chosen) → MoharError('signing_key_invalid').
 */
export function assembleSignedData(options: AssembleOptions): Uint8Array {
  const cert = certInfo(options.certificate);
  const keyType = keyTypeOf(cert);
  const signature = keyType === 'EC' ? normalizeEcdsaSignature(options.signature, cert) : options.signature;
  const sigAlg = signatureAlgorithm(keyType);
  const check = verifySignature(cert.publicKey, sigAlg, OID.sha256, options.signedAttributes, signature);
  if (!check.ok) {
    throw new MoharError(
      'signing_key_invalid',
      `the signature made by the signing key does not verify with the signer certificate (${cert.subject}): ${check.reason ?? ''}`,
    );
  }

  const attrs = readTlv(options.signedAttributes, 0, 'invalid_signature_data');
  if (attrs.tag !== 0x31 || attrs.end !== options.signedAttributes.length) {
    throw new RangeError('signedAttributes must be a DER SET OF Attribute');
  }
  for (const member of childrenOf(options.signedAttributes, attrs)) {
    const parts = member.tag === 0x30 ? childrenOf(options.signedAttributes, member) : [];
    if (parts.length !== 2 || parts[0]!.tag !== 0x06 || parts[1]!.tag !== 0x31) {
      throw new RangeError('signedAttributes must be a DER SET OF Attribute');
    }
  }

  const certs: Uint8Array[] = [];
  for (const der of [cert.der, ...(options.chain ?? [])]) {
    const exact = certInfo(der).der;
    if (!certs.some((c) => equalBytes(c, exact))) certs.push(exact);
  }
  // Encoded directly (RFC 5652 5.1, 5.3): the certificates go in exactly as they were given (nothing
  // re-encoded), and the SignerInfo carries the signed attribute bytes themselves under [0] IMPLICIT.
  // pkijs did the same assembly through its object model at ~1.5 ms per signature (every certificate
  // re-parsed to be re-encoded); test/pdf/cms/signed-data.test.ts checks the bytes are the same.
  const signerInfo = seq(
    DER.version1,
    seq(cert.issuerDer, tlv(0x02, cert.serial)),
    DER.sha256,
    tlv(0xa0, options.signedAttributes.subarray(attrs.contentStart)),
    DER[keyType],
    octets(signature),
  );
  const signedData = seq(
    DER.version1,
    tlv(0x31, DER.sha256),
    DER.encapData,
    tlv(0xa0, ...certs),
    tlv(0x31, signerInfo),
  );
  return seq(DER.signedData, tlv(0xa0, signedData));
}

export interface CreateSignedDataOptions {
  /** SHA-256 of the signed content (the PDF ByteRange bytes). */
  readonly messageDigest: Uint8Array;
  readonly signer: SignatureProvider;
}

/** Builds the detached B-B CMS with the signer's key. Returns DER ContentInfo. */
export async function createSignedData(options: CreateSignedDataOptions): Promise<Uint8Array> {
  const { signer } = options;
  const cert = certInfo(signer.certificate);
  const keyType = keyTypeOf(cert);
  if (keyType !== signer.keyType) {
    throw new MoharError(
      'signing_key_invalid',
      `the signer reports a ${signer.keyType} key but its certificate holds a ${keyType} key`,
    );
  }
  const signedAttributes = buildSignedAttributes({ messageDigest: options.messageDigest, certificate: cert.der });
  const signature = await signer.sign(signedAttributes);
  return assembleSignedData({ signedAttributes, signature, certificate: cert.der, chain: signer.chain });
}
