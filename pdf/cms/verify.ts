/**
 * Signature checks with node:crypto for the algorithms found in CMS, OCSP and CRLs:
 * RSA PKCS#1 v1.5, RSASSA-PSS (MGF1 with the same hash), ECDSA, and Ed25519 / Ed448 (RFC 8419: the
 * signature is over the data itself, the CMS digest algorithm must be SHA-512 resp. SHAKE256).
 */
import { constants, verify as nodeVerify, type KeyObject } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { DIGEST_BY_OID, OID } from './oids.js';

export interface SignatureCheck {
  readonly ok: boolean;
  /** Human-readable algorithm, e.g. "sha256WithRSAEncryption", "ecdsa-with-SHA256", "RSASSA-PSS/sha256". */
  readonly algorithm: string;
  /** Why the check failed or could not be made. */
  readonly reason?: string;
}

const RSA_PKCS1: Readonly<Record<string, [string, string]>> = {
  [OID.sha1WithRSAEncryption]: ['sha1', 'sha1WithRSAEncryption'],
  [OID.sha224WithRSAEncryption]: ['sha224', 'sha224WithRSAEncryption'],
  [OID.sha256WithRSAEncryption]: ['sha256', 'sha256WithRSAEncryption'],
  [OID.sha384WithRSAEncryption]: ['sha384', 'sha384WithRSAEncryption'],
  [OID.sha512WithRSAEncryption]: ['sha512', 'sha512WithRSAEncryption'],
};
const ECDSA: Readonly<Record<string, [string, string]>> = {
  [OID.ecdsaWithSHA1]: ['sha1', 'ecdsa-with-SHA1'],
  [OID.ecdsaWithSHA224]: ['sha224', 'ecdsa-with-SHA224'],
  [OID.ecdsaWithSHA256]: ['sha256', 'ecdsa-with-SHA256'],
  [OID.ecdsaWithSHA384]: ['sha384', 'ecdsa-with-SHA384'],
  [OID.ecdsaWithSHA512]: ['sha512', 'ecdsa-with-SHA512'],
};

const EDDSA: Readonly<Record<string, { name: 'ed25519' | 'ed448'; digest: string }>> = {
  [OID.ed25519]: { name: 'ed25519', digest: 'sha512' },
  [OID.ed448]: { name: 'ed448', digest: 'shake256' },
};

function verifyEdDsa(
  publicKey: KeyObject,
  scheme: { name: 'ed25519' | 'ed448'; digest: string },
  digestName: string | undefined,
  data: Uint8Array,
  signature: Uint8Array,
): SignatureCheck {
  const algorithm = scheme.name === 'ed25519' ? 'Ed25519' : 'Ed448';
  if (digestName !== scheme.digest) {
    return {
      ok: false,
      algorithm,
      reason: `the digest algorithm ${digestName ?? 'given'} does not fit ${algorithm} (RFC 8419 asks for ${scheme.digest})`,
    };
  }
  if (publicKey.asymmetricKeyType !== scheme.name) {
    return {
      ok: false,
      algorithm,
      reason: `the ${algorithm} signature does not fit a ${publicKey.asymmetricKeyType ?? 'unknown'} key`,
    };
  }
  try {
    const ok = nodeVerify(null, data, publicKey, signature);
    return ok ? { ok, algorithm } : { ok, algorithm, reason: 'the signature does not verify with the public key' };
  } catch (e) {
    return { ok: false, algorithm, reason: `signature check failed: ${(e as Error).message}` };
  }
}

/**
 * Verifies `signature` over `data`. `digestOid` is the CMS digestAlgorithm, used when the
 * signature algorithm names no hash (rsaEncryption, ecPublicKey).
 */
export function verifySignature(
  publicKey: KeyObject,
  algorithm: pkijs.AlgorithmIdentifier,
  digestOid: string | undefined,
  data: Uint8Array,
  signature: Uint8Array,
): SignatureCheck {
  const id = algorithm.algorithmId;
  const digestName = digestOid === undefined ? undefined : DIGEST_BY_OID[digestOid];
  if (EDDSA[id]) return verifyEdDsa(publicKey, EDDSA[id], digestName, data, signature);
  let hash: string | undefined;
  let name: string;
  let options: { padding?: number; saltLength?: number; dsaEncoding?: 'der' } = {};
  const keyType = publicKey.asymmetricKeyType;
  if (RSA_PKCS1[id]) {
    [hash, name] = RSA_PKCS1[id]!;
    options = { padding: constants.RSA_PKCS1_PADDING };
  } else if (id === OID.rsaEncryption) {
    hash = digestName;
    name = `rsaEncryption/${hash ?? '?'}`;
    options = { padding: constants.RSA_PKCS1_PADDING };
  } else if (ECDSA[id]) {
    [hash, name] = ECDSA[id]!;
    options = { dsaEncoding: 'der' };
  } else if (id === OID.ecPublicKey) {
    hash = digestName;
    name = `ecdsa/${hash ?? '?'}`;
    options = { dsaEncoding: 'der' };
  } else if (id === OID.rsassaPss) {
    let params: pkijs.RSASSAPSSParams;
    try {
      params = new pkijs.RSASSAPSSParams({ schema: algorithm.algorithmParams as asn1js.AsnType });
    } catch {
      return { ok: false, algorithm: 'RSASSA-PSS', reason: 'unreadable RSASSA-PSS parameters' };
    }
    hash = DIGEST_BY_OID[params.hashAlgorithm.algorithmId];
    name = `RSASSA-PSS/${hash ?? '?'}`;
    if (params.maskGenAlgorithm.algorithmId !== OID.mgf1) {
      return { ok: false, algorithm: name, reason: 'unsupported PSS mask generation function' };
    }
    try {
      const mgfHash = new pkijs.AlgorithmIdentifier({
        schema: params.maskGenAlgorithm.algorithmParams as asn1js.AsnType,
      }).algorithmId;
      if (mgfHash !== params.hashAlgorithm.algorithmId) {
        return {
          ok: false,
          algorithm: name,
          reason: 'PSS with an MGF1 hash different from the message hash is not supported',
        };
      }
    } catch {
      return { ok: false, algorithm: name, reason: 'unreadable MGF1 parameters' };
    }
    if (params.trailerField !== 1) return { ok: false, algorithm: name, reason: 'unsupported PSS trailer field' };
    options = { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: params.saltLength };
  } else {
    return { ok: false, algorithm: id, reason: `unsupported signature algorithm ${id}` };
  }
  if (!hash) return { ok: false, algorithm: name, reason: 'unsupported or missing digest algorithm' };
  const wantsEc = options.dsaEncoding !== undefined;
  if (wantsEc ? keyType !== 'ec' : keyType !== 'rsa' && keyType !== 'rsa-pss') {
    return { ok: false, algorithm: name, reason: `the ${name} signature does not fit a ${keyType ?? 'unknown'} key` };
  }
  try {
    const ok = nodeVerify(hash, data, { key: publicKey, ...options }, signature);
    return ok
      ? { ok, algorithm: name }
      : { ok, algorithm: name, reason: 'the signature does not verify with the public key' };
  } catch (e) {
    return { ok: false, algorithm: name, reason: `signature check failed: ${(e as Error).message}` };
  }
}
