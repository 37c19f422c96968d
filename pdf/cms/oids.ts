/** Object identifiers used by pdf/cms. */
import { createHash, type Hash } from 'node:crypto';

export const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  tstInfo: '1.2.840.113549.1.9.16.1.4',

  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingTime: '1.2.840.113549.1.9.5',
  signingCertificate: '1.2.840.113549.1.9.16.2.12',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  signatureTimeStampToken: '1.2.840.113549.1.9.16.2.14',

  sha1: '1.3.14.3.2.26',
  sha224: '2.16.840.1.101.3.4.2.4',
  sha256: '2.16.840.1.101.3.4.2.1',
  sha384: '2.16.840.1.101.3.4.2.2',
  sha512: '2.16.840.1.101.3.4.2.3',
  /** SHAKE256 with 512 bits of output, as RFC 8419 pairs it with Ed448. */
  shake256: '2.16.840.1.101.3.4.2.12',

  rsaEncryption: '1.2.840.113549.1.1.1',
  sha1WithRSAEncryption: '1.2.840.113549.1.1.5',
  sha224WithRSAEncryption: '1.2.840.113549.1.1.14',
  sha256WithRSAEncryption: '1.2.840.113549.1.1.11',
  sha384WithRSAEncryption: '1.2.840.113549.1.1.12',
  sha512WithRSAEncryption: '1.2.840.113549.1.1.13',
  rsassaPss: '1.2.840.113549.1.1.10',
  mgf1: '1.2.840.113549.1.1.8',
  ecPublicKey: '1.2.840.10045.2.1',
  ecdsaWithSHA1: '1.2.840.10045.4.1',
  ecdsaWithSHA224: '1.2.840.10045.4.3.1',
  ecdsaWithSHA256: '1.2.840.10045.4.3.2',
  ecdsaWithSHA384: '1.2.840.10045.4.3.3',
  ecdsaWithSHA512: '1.2.840.10045.4.3.4',
  ed25519: '1.3.101.112',
  ed448: '1.3.101.113',

  extKeyUsage: '2.5.29.37',
  crlDistributionPoints: '2.5.29.31',
  authorityInfoAccess: '1.3.6.1.5.5.7.1.1',
  adOcsp: '1.3.6.1.5.5.7.48.1',
  adCaIssuers: '1.3.6.1.5.5.7.48.2',
  kpTimeStamping: '1.3.6.1.5.5.7.3.8',
  kpOcspSigning: '1.3.6.1.5.5.7.3.9',
  ocspBasic: '1.3.6.1.5.5.7.48.1.1',
  ocspNonce: '1.3.6.1.5.5.7.48.1.2',
  ocspNoCheck: '1.3.6.1.5.5.7.48.1.5',
} as const;

/** Node digest names by digest OID. */
export const DIGEST_BY_OID: Readonly<Record<string, string>> = {
  [OID.sha1]: 'sha1',
  [OID.sha224]: 'sha224',
  [OID.sha256]: 'sha256',
  [OID.sha384]: 'sha384',
  [OID.sha512]: 'sha512',
  [OID.shake256]: 'shake256',
};

/** A hash of `name` (a value of DIGEST_BY_OID): SHAKE256 with the 512-bit output RFC 8419 gives it in CMS. */
export function newHash(name: string): Hash {
  return createHash(name, name === 'shake256' ? { outputLength: 64 } : undefined);
}
