/**
 * Signatures as other tools make them, for the verifier's "too strict" cases (issue 26 point 8): openssl's
 * `cms -sign` gives a CMS with a signing-time attribute and no ESS attribute (as Acrobat and older DSC tools do),
 * with `-noattr` one without signed attributes (the signature over the content itself); `edDsaCms` an Ed25519 or
 * Ed448 signer (RFC 8419; OpenSSL 3.0's cms cannot). Keys and self-signed certificates are made here, at test time.
 */
import { execFileSync } from 'node:child_process';
import { createHash, createPrivateKey, sign as nodeSign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  byteRangeData,
  embedSignatureInPlace,
  prepareSignature,
  type PreparedSignature,
} from '../../pdf/sign/prepare.js';

import { oid, readTlv, seq, set, tlv } from '../../pdf/cms/der.js';
import { OID } from '../../pdf/cms/oids.js';
import { signingCertificateV2 } from '../../pdf/cms/signed-data.js';
import { certInfo } from '../../pdf/cms/x509.js';

export type VariantKey = 'rsa' | 'ed25519' | 'ed448';

export interface VariantSigner {
  readonly key: VariantKey;
  readonly certPath: string;
  readonly keyPath: string;
  readonly certPem: string;
}

export interface CmsVariants {
  readonly signer: (key: VariantKey) => VariantSigner;
  /** A detached CMS over `data` made by `openssl cms -sign` with `flags` (e.g. ["-noattr"], ["-md", "sha512"]). */
  readonly sign: (data: Uint8Array, signer: VariantSigner, flags?: readonly string[]) => Buffer;
  readonly cleanup: () => void;
}

const openssl = (args: readonly string[]): string =>
  execFileSync('openssl', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

export function cmsVariants(): CmsVariants {
  const dir = mkdtempSync(join(tmpdir(), 'mohar-cms-variants-'));
  const made = new Map<VariantKey, VariantSigner>();
  let count = 0;
  const signer = (key: VariantKey): VariantSigner => {
    const known = made.get(key);
    if (known) return known;
    const keyPath = join(dir, `${key}.key`);
    const certPath = join(dir, `${key}.pem`);
    openssl(['genpkey', '-algorithm', key === 'rsa' ? 'RSA' : key.toUpperCase(), '-out', keyPath]);
    openssl([
      'req',
      '-x509',
      '-new',
      '-key',
      keyPath,
      '-out',
      certPath,
      '-days',
      '30',
      '-subj',
      `/C=IN/O=Mohar Test/CN=${key} signer/emailAddress=${key}@example.com`,
    ]);
    const made1 = { key, keyPath, certPath, certPem: readFileSync(certPath, 'utf8') };
    made.set(key, made1);
    return made1;
  };
  const sign = (data: Uint8Array, who: VariantSigner, flags: readonly string[] = []): Buffer => {
    const input = join(dir, `data-${++count}`);
    const output = `${input}.p7s`;
    writeFileSync(input, data);
    openssl([
      'cms',
      '-sign',
      '-binary',
      '-in',
      input,
      '-signer',
      who.certPath,
      '-inkey',
      who.keyPath,
      '-outform',
      'DER',
      '-out',
      output,
      ...flags,
    ]);
    return readFileSync(output);
  };
  return { signer, sign, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * `pdf` with a new invisible signature field signed by `makeCms` over the /ByteRange bytes; `dictionary` may first
 * rewrite the prepared signature dictionary (same length, e.g. another /SubFilter) so that the CMS signs it.
 */
export function signWith(
  pdf: Uint8Array,
  makeCms: (signed: Buffer) => Uint8Array,
  dictionary: (prepared: PreparedSignature) => void = () => {},
): Buffer {
  const prepared = prepareSignature(pdf, { field: { invisible: true, name: 'Signature1' }, signingTime: new Date() });
  dictionary(prepared);
  return embedSignatureInPlace(prepared, makeCms(byteRangeData(prepared)));
}

/** Rewrites `from` (in the revision `prepared` appends) as `to`, padded with spaces to the same length. */
export function rewriteInRevision(prepared: PreparedSignature, from: string, to: string): void {
  if (to.length > from.length) throw new Error(`"${to}" is longer than "${from}"`);
  const at = prepared.bytes.indexOf(from, prepared.previousLength, 'latin1');
  if (at < 0) throw new Error(`"${from}" is not in the new revision`);
  prepared.bytes.write(to.padEnd(from.length, ' '), at, 'latin1');
}

/**
 * A detached CMS over `data` signed by an Ed25519 or Ed448 `signer` (RFC 8419): content-type, message-digest and
 * ESS signing-certificate-v2 signed attributes; the digest algorithm is SHA-512 resp. SHAKE256 (512 bits) unless
 * `digest` names another (sha256: what the RFC does not allow).
 */
export function edDsaCms(data: Uint8Array, signer: VariantSigner, digest?: 'sha256' | 'sha512' | 'shake256'): Buffer {
  if (signer.key === 'rsa') throw new Error('edDsaCms needs an Ed25519 or Ed448 signer');
  const hash = digest ?? (signer.key === 'ed25519' ? 'sha512' : 'shake256');
  const digestOid = { sha256: OID.sha256, sha512: OID.sha512, shake256: OID.shake256 }[hash];
  const messageDigest = createHash(hash, hash === 'shake256' ? { outputLength: 64 } : undefined)
    .update(data)
    .digest();
  const cert = certInfo(Buffer.from(signer.certPem.replace(/-----[^-]+-----|\s/g, ''), 'base64'));
  const attributes = set(
    seq(oid(OID.contentType), set(oid(OID.data))),
    seq(oid(OID.messageDigest), set(tlv(0x04, messageDigest))),
    seq(oid(OID.signingCertificateV2), set(signingCertificateV2(cert.der))),
  );
  const key = createPrivateKey(readFileSync(signer.keyPath));
  const signature = nodeSign(null, attributes, key);
  const algorithm = seq(oid(signer.key === 'ed25519' ? OID.ed25519 : OID.ed448));
  const signerInfo = seq(
    tlv(0x02, Uint8Array.of(1)),
    seq(cert.issuerDer, tlv(0x02, cert.serial)),
    seq(oid(digestOid)),
    tlv(0xa0, attributes.subarray(readTlv(attributes, 0).contentStart)),
    algorithm,
    tlv(0x04, signature),
  );
  const signedData = seq(
    tlv(0x02, Uint8Array.of(1)),
    set(seq(oid(digestOid))),
    seq(oid(OID.data)),
    tlv(0xa0, cert.der),
    set(signerInfo),
  );
  return Buffer.from(seq(oid(OID.signedData), tlv(0xa0, signedData)));
}
