/**
 * The desktop bridge: what Mohar Desktop exposes to the hosted signing page as `window.moharDesktop`.
 *
 * One contract shared by main/ (the service behind it), the preload (contextBridge wiring) and renderer/
 * (the page). Only plain JSON travels across it, so the same contract works through Electron's
 * contextBridge and through Playwright's exposeBinding in the end-to-end tests. Failures are returned as
 * coded results rather than thrown: contextBridge keeps only the message of a thrown error.
 *
 * The PIN never crosses this bridge. The desktop asks for it in a window of its own (the PinPrompt port in
 * main/signer); the page learns only success or a coded error.
 */

export const DESKTOP_BRIDGE_VERSION = 1 as const;

/** The global the preload defines on the page. */
export const DESKTOP_BRIDGE_GLOBAL = 'moharDesktop' as const;

/** IPC channel names between preload and main. */
export const DESKTOP_BRIDGE_CHANNELS = {
  listTokens: 'mohar:tokens:list',
  tokensChanged: 'mohar:tokens:changed',
  /** Preload -> main: true starts token watching for this page, false stops it (tokensChanged then flows). */
  watchTokens: 'mohar:tokens:watch',
  signPrepared: 'mohar:sign:prepared',
} as const;

export interface TokenCertificate {
  /** CKA_ID in hex: with slotId, names the key to sign with. */
  id: string;
  label: string;
  /** Subject as a one-line display string (CN=..., O=..., C=...). */
  subject: string;
  commonName: string;
  issuer: string;
  serialNumber: string;
  notBefore: string;
  notAfter: string;
  keyAlgorithm: 'RSA' | 'EC';
  /** The Indian CCA class read from the certificate policies ("Class 2", "Class 3"), or null. */
  certificateClass: string | null;
  /** False when expired, not yet valid, or without a private key / signing key usage. */
  usableForSigning: boolean;
  /** Why it is not usable, in plain words; empty when usable. */
  problems: string[];
}

export interface TokenInfo {
  /** Stable while the token stays inserted. */
  slotId: string;
  label: string;
  manufacturer: string;
  model: string;
  serialNumber: string;
  /** The PKCS#11 module (driver) the token was found through, e.g. "SoftHSM", "ePass2003". */
  moduleName: string;
  pinLocked: boolean;
  /** The token reports that the next wrong PIN locks it. */
  pinFinalTry: boolean;
  certificates: TokenCertificate[];
}

export interface SignPreparedRequest {
  /** The prepared PDF from {api_base}/signing/{token}/documents/{id}/prepared, base64. */
  pdfBase64: string;
  /** The signature field to sign: the X-Mohar-Signature-Field header of the prepared response. */
  fieldName: string;
  slotId: string;
  certificateId: string;
  /** Shown in the desktop's PIN window so the signer knows what they sign. */
  documentName: string;
  reason?: string;
  location?: string;
}

export interface SignPreparedResult {
  /** The signed PDF, base64: the prepared bytes plus one incremental revision. */
  pdfBase64: string;
  signerSubject: string;
  signedAt: string;
}

export type DesktopErrorCode =
  | 'pin_incorrect'
  | 'pin_locked'
  | 'pin_cancelled'
  | 'token_removed'
  | 'token_not_found'
  | 'certificate_not_found'
  | 'certificate_not_usable'
  | 'invalid_request'
  | 'busy'
  | 'signing_failed';

export interface DesktopError {
  code: DesktopErrorCode;
  message: string;
  /** For pin_incorrect: tries left when the token tells, else null. */
  triesLeft?: number | null;
}

export type BridgeResult<T> = { ok: true; value: T } | { ok: false; error: DesktopError };

export interface MoharDesktopBridge {
  readonly version: typeof DESKTOP_BRIDGE_VERSION;
  listTokens(): Promise<BridgeResult<TokenInfo[]>>;
  /** Calls the listener with the full token list after every insert or removal; returns an unsubscribe. */
  watchTokens(listener: (tokens: TokenInfo[]) => void): () => void;
  signPrepared(request: SignPreparedRequest): Promise<BridgeResult<SignPreparedResult>>;
}
