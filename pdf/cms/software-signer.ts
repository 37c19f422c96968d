/**
 * A SignatureProvider backed by a software key held in memory (the server's seal key, tests).
 * Keys: PEM (PKCS#8, encrypted PKCS#8, PKCS#1 RSA, SEC1 EC) or a PKCS#12 file.
 *
 * PKCS#12: node:crypto cannot read PFX files, so pkijs parses the container and checks the MAC;
 * shrouded key bags are decrypted by node:crypto (PBES2, and PKCS#12 3DES where OpenSSL offers it);
 * encrypted certificate bags are decrypted by pkijs, which supports PBES2 only. Files from
 * `openssl pkcs12 -export` with OpenSSL 3 defaults (AES-256-CBC, PBKDF2, HMAC-SHA256) work; legacy
 * files (RC2-40 certificate bags, `-legacy`) work only when the certificate is also passed in.
 * Non-ASCII passphrases are not supported for PKCS#12.
 */
import { createPrivateKey, createPublicKey, sign as nodeSign, type KeyObject } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { MoharError } from '../../common/errors.js';
import type { SignatureProvider } from '../ports.js';
import { certificatesFrom, equalBytes, fromBufferSource, toArrayBuffer } from './der.js';
import { certInfo, type CertInfo } from './x509.js';

export interface SoftwareSignerOptions {
  /** PEM private key (PKCS#8, encrypted PKCS#8 with `passphrase`, PKCS#1 or SEC1). */
  readonly keyPem?: string | Uint8Array;
  /** A PKCS#12 (.p12/.pfx) file; its certificates are used when `certificate` is not given. */
  readonly pkcs12?: Uint8Array;
  readonly passphrase?: string;
  /** Signer certificate, DER or PEM. Required with `keyPem`. */
  readonly certificate?: Uint8Array | string;
  /** Chain above the signer (DER or PEM, PEM may hold several). Defaults to the PKCS#12's other certificates. */
  readonly chain?: readonly (Uint8Array | string)[];
}

const BAG_KEY = '1.2.840.113549.1.12.10.1.1';
const BAG_SHROUDED_KEY = '1.2.840.113549.1.12.10.1.2';
const BAG_CERT = '1.2.840.113549.1.12.10.1.3';
const CERT_X509 = '1.2.840.113549.1.9.22.1';

function invalid(message: string, cause?: unknown): MoharError {
  return new MoharError('signing_key_invalid', message, cause === undefined ? {} : { cause });
}

function spkiOf(key: KeyObject): Uint8Array {
  return new Uint8Array(createPublicKey(key).export({ type: 'spki', format: 'der' }));
}

function certsOf(input: Uint8Array | string): Uint8Array[] {
  const list = certificatesFrom(input);
  if (list.length === 0) throw invalid('no certificate found in the given PEM');
  return list;
}

interface Pkcs12Content {
  keys: KeyObject[];
  certificates: Uint8Array[];
  problems: string[];
}

async function readPkcs12(file: Uint8Array, passphrase: string): Promise<Pkcs12Content> {
  if (/[^\x20-\x7e]/.test(passphrase)) throw invalid('PKCS#12 passphrases must be printable ASCII');
  const password = toArrayBuffer(new TextEncoder().encode(passphrase));
  let pfx: pkijs.PFX;
  try {
    pfx = pkijs.PFX.fromBER(toArrayBuffer(file));
  } catch (e) {
    throw invalid('the PKCS#12 file is not readable', e);
  }
  try {
    await pfx.parseInternalValues({ password, checkIntegrity: true });
  } catch (e) {
    throw invalid(`the PKCS#12 integrity check failed (wrong passphrase?): ${(e as Error).message}`, e);
  }
  const authSafe = pfx.parsedValue?.authenticatedSafe;
  if (!authSafe) throw invalid('the PKCS#12 file holds no authenticated safe');
  const out: Pkcs12Content = { keys: [], certificates: [], problems: [] };
  // Decrypt each safe on its own so that one unsupported (legacy) safe does not hide the others.
  for (const content of authSafe.safeContents) {
    const one = new pkijs.AuthenticatedSafe({ safeContents: [content] });
    try {
      await one.parseInternalValues({
        safeContents: [content.contentType === pkijs.ContentInfo.ENCRYPTED_DATA ? { password } : {}],
      });
    } catch (e) {
      out.problems.push(
        `an encrypted safe could not be decrypted (${(e as Error).message}); legacy PKCS#12 encryption is not supported, re-export with OpenSSL 3 defaults`,
      );
      continue;
    }
    const safe = (one.parsedValue as { safeContents: { value: pkijs.SafeContents }[] }).safeContents[0]!.value;
    for (const bag of safe.safeBags) {
      try {
        if (bag.bagId === BAG_SHROUDED_KEY) {
          const der = fromBufferSource((bag.bagValue as pkijs.PKCS8ShroudedKeyBag).toSchema().toBER(false));
          out.keys.push(createPrivateKey({ key: Buffer.from(der), format: 'der', type: 'pkcs8', passphrase }));
        } else if (bag.bagId === BAG_KEY) {
          const der = fromBufferSource((bag.bagValue as pkijs.PrivateKeyInfo).toSchema().toBER(false));
          out.keys.push(createPrivateKey({ key: Buffer.from(der), format: 'der', type: 'pkcs8' }));
        } else if (bag.bagId === BAG_CERT) {
          const certBag = bag.bagValue as pkijs.CertBag;
          if (certBag.certId !== CERT_X509) continue;
          const value = certBag.certValue;
          const der =
            value instanceof asn1js.OctetString
              ? new Uint8Array(value.valueBlock.valueHexView)
              : fromBufferSource(value.toSchema().toBER(false));
          out.certificates.push(der);
        }
      } catch (e) {
        out.problems.push(`a PKCS#12 bag could not be read: ${(e as Error).message}`);
      }
    }
  }
  return out;
}

/**
 * Creates a software-key SignatureProvider. The key must match the certificate (checked).
 * Errors: MoharError('signing_key_invalid') for unreadable keys, wrong passphrases, unsupported
 * key types and key/certificate mismatches.
 */
export async function softwareSigner(options: SoftwareSignerOptions): Promise<SignatureProvider> {
  let key: KeyObject;
  let certificate: CertInfo;
  let chain: Uint8Array[];
  const given =
    options.certificate === undefined ? undefined : certInfo(certsOf(options.certificate)[0]!, 'signing_key_invalid');
  const givenChain = options.chain?.flatMap((c) => certsOf(c));
  if (options.pkcs12) {
    if (options.keyPem !== undefined) throw invalid('give either keyPem or pkcs12, not both');
    const p12 = await readPkcs12(options.pkcs12, options.passphrase ?? '');
    if (p12.keys.length === 0) throw invalid(['no private key found in the PKCS#12 file', ...p12.problems].join('; '));
    const certs = p12.certificates.map((der) => certInfo(der, 'signing_key_invalid'));
    const pairs = p12.keys.flatMap((k) => {
      const spki = spkiOf(k);
      return (given ? [given] : certs).filter((c) => equalBytes(c.spkiDer, spki)).map((c) => ({ k, c }));
    });
    const pair = pairs[0];
    if (!pair) throw invalid(['no certificate matching the PKCS#12 private key', ...p12.problems].join('; '));
    key = pair.k;
    certificate = pair.c;
    chain = givenChain ?? certs.filter((c) => !equalBytes(c.der, pair.c.der)).map((c) => c.der);
  } else {
    if (options.keyPem === undefined) throw invalid('a keyPem or a pkcs12 file is required');
    if (!given) throw invalid('a certificate is required with keyPem');
    try {
      const pem = typeof options.keyPem === 'string' ? options.keyPem : Buffer.from(options.keyPem).toString('latin1');
      key = createPrivateKey(
        options.passphrase === undefined
          ? { key: pem, format: 'pem' }
          : { key: pem, format: 'pem', passphrase: options.passphrase },
      );
    } catch (e) {
      throw invalid(`the private key is not readable: ${(e as Error).message}`, e);
    }
    if (!equalBytes(spkiOf(key), given.spkiDer)) throw invalid('the private key does not match the certificate');
    certificate = given;
    chain = givenChain ?? [];
  }
  const type = key.asymmetricKeyType;
  if (type !== 'rsa' && type !== 'ec') throw invalid(`unsupported key type ${type ?? 'unknown'} (RSA or EC only)`);
  const signingKey = key;
  return {
    certificate: certificate.der,
    chain,
    keyType: type === 'rsa' ? 'RSA' : 'EC',
    async sign(data: Uint8Array): Promise<Uint8Array> {
      return new Uint8Array(
        nodeSign('sha256', data, type === 'ec' ? { key: signingKey, dsaEncoding: 'der' } : signingKey),
      );
    },
  };
}
