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
import type { SignatureProvider } from '../sign/ports.js';
import { concatBytes, equalBytes, fromBufferSource, octets, oid, seq, set, sortDerSet, tlv, toArrayBuffer } from './der.js';
import { OID } from './oids.js';
import { verifySignature } from './verify.js';
import { certInfo, sha256, type CertInfo } from './x509.js';

export type KeyType = 'RSA' | 'EC';

/** `SigningCertificateV2 ::= SEQUENCE { certs SEQUENCE OF ESSCertIDv2 }` for one certificate (SHA-256, DEFAULT so omitted). */
export function signingCertificateV2(certificate: Uint8Array): Uint8Array {
  const c = certInfo(certificate);
  const issuerSerial = seq(seq(tlv(0xa4, c.issuerDer)), tlv(0x02, c.serial));
  const essCertIdV2 = seq(octets(sha256(c.der)), issuerSerial);
  return seq(seq(essCertIdV2));
}

function attribute(type: string, value: Uint8Array): Uint8Array {
  return seq(oid(type), set(value));
}

/**
 * The DER `SET OF Attribute` to be signed: content-type, message-digest, signing-certificate-v2.
 * `messageDigest` is the SHA-256 of the signed content (32 bytes).
 */
export function buildSignedAttributes(options: { messageDigest: Uint8Array; certificate: Uint8Array }): Uint8Array {
  if (options.messageDigest.length !== 32) throw new RangeError('messageDigest must be a SHA-256 digest (32 bytes)');
  const attrs = [
    attribute(OID.contentType, oid(OID.data)),
    attribute(OID.messageDigest, octets(options.messageDigest)),
    attribute(OID.signingCertificateV2, signingCertificateV2(options.certificate)),
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

const CURVE_BYTES: Readonly<Record<string, number>> = { prime256v1: 32, secp384r1: 48, secp521r1: 66 };

/** Accepts a DER ECDSA-Sig-Value, or converts a raw r||s of the curve's size to DER. */
function normalizeEcdsaSignature(signature: Uint8Array, cert: CertInfo): Uint8Array {
  const asn1 = asn1js.fromBER(toArrayBuffer(signature));
  if (asn1.offset === signature.length && asn1.result instanceof asn1js.Sequence) {
    const v = asn1.result.valueBlock.value;
    if (v.length === 2 && v.every((x) => x instanceof asn1js.Integer)) return signature;
  }
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
    throw new MoharError('signing_key_invalid', `the signature made by the signing key does not verify with the signer certificate (${cert.subject}): ${check.reason ?? ''}`);
  }

  const attrsAsn1 = asn1js.fromBER(toArrayBuffer(options.signedAttributes));
  if (attrsAsn1.offset !== options.signedAttributes.length || !(attrsAsn1.result instanceof asn1js.Set)) {
    throw new RangeError('signedAttributes must be a DER SET OF Attribute');
  }
  const signedAttrs = new pkijs.SignedAndUnsignedAttributes({
    type: 0,
    attributes: attrsAsn1.result.valueBlock.value.map((a) => new pkijs.Attribute({ schema: a })),
  });

  const certs: Uint8Array[] = [];
  for (const der of [cert.der, ...(options.chain ?? [])]) {
    if (!certs.some((c) => equalBytes(c, der))) certs.push(der);
  }
  const signedData = new pkijs.SignedData({
    version: 1,
    digestAlgorithms: [new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha256 })],
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: OID.data }),
    certificates: certs.map((der) => certInfo(der).cert),
    signerInfos: [
      new pkijs.SignerInfo({
        version: 1,
        sid: new pkijs.IssuerAndSerialNumber({ issuer: cert.cert.issuer, serialNumber: cert.cert.serialNumber }),
        digestAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha256 }),
        signedAttrs,
        signatureAlgorithm: sigAlg,
        signature: new asn1js.OctetString({ valueHex: toArrayBuffer(signature) }),
      }),
    ],
  });
  const contentInfo = new pkijs.ContentInfo({ contentType: OID.signedData, content: signedData.toSchema(true) });
  const der = fromBufferSource(contentInfo.toSchema().toBER(false));

  // The SignerInfo must carry exactly the attribute bytes that were signed: the same DER with the SET
  // tag replaced by [0] IMPLICIT (the length octets do not change). They hold the message digest and the
  // certificate hash, so they cannot occur elsewhere. A byte search, not a re-parse of the whole
  // SignedData (with every certificate) through pkijs, which cost ~5 ms per signature.
  const carried = Buffer.from(options.signedAttributes);
  carried[0] = 0xa0;
  if (!Buffer.from(der.buffer, der.byteOffset, der.byteLength).includes(carried)) throw new Error('internal: signed attributes were re-encoded differently');
  return der;
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
    throw new MoharError('signing_key_invalid', `the signer reports a ${signer.keyType} key but its certificate holds a ${keyType} key`);
  }
  const signedAttributes = buildSignedAttributes({ messageDigest: options.messageDigest, certificate: cert.der });
  const signature = await signer.sign(signedAttributes);
  return assembleSignedData({ signedAttributes, signature, certificate: cert.der, chain: signer.chain });
}
