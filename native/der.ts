/**
 * The little DER the signer needs: ECDSA r||s (what CKM_ECDSA returns) to ECDSA-Sig-Value, and the
 * PKCS#1 v1.5 DigestInfo for SHA-256 (what CKM_RSA_PKCS signs when the token cannot hash).
 */
import { MoharError } from '../common/errors.js';

/** DER DigestInfo prefix for SHA-256 (RFC 8017, section 9.2 note 1). */
export const SHA256_DIGEST_INFO_PREFIX = Uint8Array.from(Buffer.from('3031300d060960864801650304020105000420', 'hex'));

export function sha256DigestInfo(hash: Uint8Array): Uint8Array {
  if (hash.length !== 32) throw new RangeError('a SHA-256 hash is 32 bytes');
  const out = new Uint8Array(SHA256_DIGEST_INFO_PREFIX.length + 32);
  out.set(SHA256_DIGEST_INFO_PREFIX, 0);
  out.set(hash, SHA256_DIGEST_INFO_PREFIX.length);
  return out;
}

function derLength(length: number): number[] {
  if (length < 0x80) return [length];
  const bytes: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n & 0xff);
  return [0x80 | bytes.length, ...bytes];
}

function derUnsignedInteger(bytes: Uint8Array): number[] {
  let i = 0;
  while (i < bytes.length - 1 && bytes[i] === 0) i++;
  const body = Array.from(bytes.subarray(i));
  if ((body[0] ?? 0) & 0x80) body.unshift(0);
  return [0x02, ...derLength(body.length), ...body];
}

/**
 * Converts a raw ECDSA signature r||s (two equal halves, as PKCS#11 CKM_ECDSA returns it) into the DER
 * ECDSA-Sig-Value SEQUENCE { r INTEGER, s INTEGER } that CMS and X.509 use.
 */
export function ecdsaRawToDer(raw: Uint8Array): Uint8Array {
  if (raw.length === 0 || raw.length % 2 !== 0) {
    throw new MoharError('pkcs11_error', `the token returned an ECDSA signature of odd length ${raw.length}`);
  }
  const half = raw.length / 2;
  const body = [...derUnsignedInteger(raw.subarray(0, half)), ...derUnsignedInteger(raw.subarray(half))];
  return Uint8Array.from([0x30, ...derLength(body.length), ...body]);
}
