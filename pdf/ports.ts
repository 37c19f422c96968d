/**
 * The ports through which pdf/ reaches the outside world while signing. pdf/ does no I/O of its
 * own: a token (native/), a software key, an HTTP client for the TSA or OCSP responders (server/)
 * are all handed in by the caller. Below both cms/ and sign/ (both use them; neither owns them), and
 * exported from pdf/index.ts.
 */

/** The key that signs: a USB token key (via native/), a PKCS#12 seal key, or a remote signer. */
export interface SignatureProvider {
  /** DER X.509 certificate of the signer. */
  readonly certificate: Uint8Array;
  /** DER certificates of the chain above the signer (intermediates, optionally the root). */
  readonly chain: readonly Uint8Array[];
  readonly keyType: 'RSA' | 'EC';
  /**
   * Signs `data` (the DER-encoded signed attributes) with SHA-256:
   * RSA → the PKCS#1 v1.5 signature value; EC → a DER-encoded ECDSA-Sig-Value (SEQUENCE { r, s }).
   */
  sign(data: Uint8Array): Promise<Uint8Array>;
}

/** Sends a DER request to a URL and returns the DER response (RFC 3161 TSA, OCSP, CRL and AIA fetches). */
export type HttpTransport = (request: {
  url: string;
  body?: Uint8Array;
  contentType?: string;
  accept?: string;
}) => Promise<Uint8Array>;
