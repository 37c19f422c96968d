/**
 * The token as a signature provider for the PDF signer. The shape is the SignatureProvider port of
 * pdf/ports.ts, copied here on purpose: native/ does not import pdf/ (and pdf/ does not import native/);
 * the main process hands a TokenSignatureProvider to pdf/ where a SignatureProvider is expected.
 */
import { X509Certificate } from 'node:crypto';
import { MoharError } from '../common/errors.js';
import type { Pkcs11Module, RsaMechanismChoice, TokenCertificate, TokenSelector } from './pkcs11-module.js';
import { assertCertificateValid } from './x509.js';

/** Same shape as pdf/ports.ts SignatureProvider. */
export interface TokenSignatureProvider {
  /** DER X.509 certificate of the signer. */
  readonly certificate: Uint8Array;
  /** DER certificates above the signer (intermediates, optionally the root). */
  readonly chain: readonly Uint8Array[];
  readonly keyType: 'RSA' | 'EC';
  /** SHA-256 signature of `data`: RSA → PKCS#1 v1.5 value; EC → DER ECDSA-Sig-Value. */
  sign(data: Uint8Array): Promise<Uint8Array>;
}

/** Asked for the PIN when sign() runs (e.g. a PIN dialog). */
export type PinProvider = () => string | Promise<string>;

export interface TokenSignerOptions {
  readonly module: Pkcs11Module;
  readonly token: TokenSelector;
  /** CKA_ID (hex) of the certificate; or certFingerprint (SHA-256 hex of its DER). */
  readonly certId?: string;
  readonly certFingerprint?: string;
  /**
   * The PIN. A string is used for exactly one sign() call and then forgotten (a second call throws
   * without touching the token); a PinProvider is asked on every sign().
   */
  readonly pin: string | PinProvider;
  /**
   * The chain above the signer (DER). Default: built from the other certificates on the token, following
   * issuer → subject (and the issuer's key) up to a self-signed certificate or as far as the token goes.
   */
  readonly chain?: readonly Uint8Array[];
  readonly rsaMechanism?: RsaMechanismChoice;
  /** Clock for the validity check (default: now). */
  readonly now?: () => Date;
}

/** Chain from `leaf` up through `pool` (issuer name + issuer key via X509Certificate.checkIssued/verify). */
export function buildChain(leaf: Uint8Array, pool: readonly Uint8Array[], maxDepth = 8): Uint8Array[] {
  const chain: Uint8Array[] = [];
  const used = new Set<string>();
  let current = new X509Certificate(leaf);
  used.add(current.fingerprint256);
  for (let depth = 0; depth < maxDepth; depth++) {
    if (current.checkIssued(current) && current.verify(current.publicKey)) break; // self-signed: the top
    const issuer = pool
      .map((der) => ({ der, cert: new X509Certificate(der) }))
      .find(
        ({ cert }) => !used.has(cert.fingerprint256) && current.checkIssued(cert) && current.verify(cert.publicKey),
      );
    if (!issuer) break;
    chain.push(new Uint8Array(issuer.der));
    used.add(issuer.cert.fingerprint256);
    current = issuer.cert;
  }
  return chain;
}

/**
 * Reads the certificate (and, unless given, its chain) from the token and returns a provider whose
 * sign() runs Pkcs11Module.signSha256. Fails early with key_not_found (no such certificate with a key on the
 * token) or certificate_expired.
 */
export async function tokenSigner(
  options: TokenSignerOptions,
): Promise<TokenSignatureProvider & { readonly info: TokenCertificate }> {
  const { module, token } = options;
  const certId = options.certId?.replace(/[\s:]/g, '').toLowerCase();
  const fingerprint = options.certFingerprint?.replace(/[\s:]/g, '').toLowerCase();
  if (certId === undefined && fingerprint === undefined) {
    throw new TypeError('tokenSigner needs certId or certFingerprint');
  }
  const now = options.now ?? (() => new Date());

  const all = await module.listCertificates(token, { includeWithoutKey: true });
  const matching = all.filter(
    (c) =>
      (certId === undefined || c.certId === certId) &&
      (fingerprint === undefined || c.fingerprintSha256 === fingerprint),
  );
  const at = now();
  // Prefer a certificate valid now, then the strongest evidence of its key.
  const rank = (c: TokenCertificate): number =>
    (c.notBefore <= at && at <= c.notAfter ? 10 : 0) +
    (c.privateKey?.evidence === 'privateKey' ? 2 : c.privateKey?.evidence === 'publicKey' ? 1 : 0);
  const info = matching.filter((c) => c.privateKey !== null).sort((a, b) => rank(b) - rank(a))[0];
  if (!info) {
    throw new MoharError(
      'key_not_found',
      `no certificate with a key for ${certId !== undefined ? `CKA_ID ${certId}` : `fingerprint ${fingerprint}`} on the token`,
      {
        extra: { certId: certId ?? null, certFingerprint: fingerprint ?? null },
      },
    );
  }
  assertCertificateValid(info, at);
  const chain = options.chain
    ? options.chain.map((c) => new Uint8Array(c))
    : buildChain(
        info.der,
        all.filter((c) => c.fingerprintSha256 !== info.fingerprintSha256).map((c) => c.der),
      );

  let pin: string | PinProvider | undefined = options.pin;
  return {
    info,
    certificate: info.der,
    chain,
    keyType: info.keyType,
    async sign(data: Uint8Array): Promise<Uint8Array> {
      const signingTime = now();
      assertCertificateValid(info, signingTime); // refused here, before the token or the PIN is involved
      const source = pin;
      if (typeof source === 'string') pin = undefined; // one use
      if (source === undefined) {
        throw new Error(
          'tokenSigner: a PIN string is good for one sign() call; pass a PinProvider to sign more than once',
        );
      }
      const value = typeof source === 'string' ? source : await source();
      const result = await module.signSha256({
        token,
        certFingerprint: info.fingerprintSha256,
        pin: value,
        data,
        rsaMechanism: options.rsaMechanism,
        now: signingTime,
      });
      return result.signature;
    },
  };
}
