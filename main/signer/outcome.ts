/**
 * Coded results for the bridge. Failures are values, not exceptions (contextBridge keeps only the message
 * of a thrown error). PKCS#11 return values are translated in native/errors.ts only; here native's and
 * pdf/'s MoharError codes become the bridge's codes.
 */
import type { BridgeResult, DesktopError, DesktopErrorCode } from '../../common/desktop-bridge.js';
import { isMoharError } from '../../common/errors.js';

/** A failure on its way to becoming a BridgeResult. */
export class DesktopFailure extends Error {
  constructor(
    readonly code: DesktopErrorCode,
    message: string,
    readonly triesLeft?: number | null,
  ) {
    super(message);
    this.name = 'DesktopFailure';
  }
}

export function ok<T>(value: T): BridgeResult<T> {
  return { ok: true, value };
}

export function failed<T>(code: DesktopErrorCode, message: string, triesLeft?: number | null): BridgeResult<T> {
  const error: DesktopError = triesLeft === undefined ? { code, message } : { code, message, triesLeft };
  return { ok: false, error };
}

/** Where in signPrepared an error happened: a token that is gone was "not found" before the PIN, "removed" after. */
export type SigningPhase = 'before-pin' | 'after-pin';

const PDF_REFUSALS = new Set([
  'invalid_pdf',
  'pdf_encrypted',
  'pdf_too_complex',
  'pdf_unsupported',
  'document_locked',
  'signature_field_not_found',
  'signature_field_signed',
  'bad_request',
]);

export function toDesktopError(error: unknown, phase: SigningPhase): DesktopError {
  if (error instanceof DesktopFailure) {
    return error.triesLeft === undefined
      ? { code: error.code, message: error.message }
      : { code: error.code, message: error.message, triesLeft: error.triesLeft };
  }
  if (!isMoharError(error)) {
    return {
      code: 'signing_failed',
      message: `Signing failed: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  const message = error.message;
  switch (error.code) {
    case 'pin_incorrect':
      return {
        code: 'pin_incorrect',
        message: 'The PIN is incorrect. Nothing was signed.',
        triesLeft: error.extra?.pinFinalTry === true ? 1 : null,
      };
    case 'pin_locked':
      return {
        code: 'pin_locked',
        message: "The token PIN is locked. Unblock it with the token vendor's tool (SO PIN); nothing was signed.",
      };
    case 'pin_expired':
      return {
        code: 'signing_failed',
        message: "The token PIN has expired: change it with the token vendor's tool, then sign again.",
      };
    case 'token_not_present':
    case 'token_removed':
      return phase === 'before-pin'
        ? { code: 'token_not_found', message: 'The token is not inserted (any more). Insert it and choose it again.' }
        : {
            code: 'token_removed',
            message: 'The token was removed before signing finished. Insert it and sign again; nothing was signed.',
          };
    case 'certificate_expired':
      return { code: 'certificate_not_usable', message };
    case 'key_not_found':
      return phase === 'before-pin'
        ? { code: 'certificate_not_found', message }
        : { code: 'certificate_not_usable', message };
    default:
      if (PDF_REFUSALS.has(error.code)) {
        return { code: 'invalid_request', message: `The prepared PDF cannot be signed: ${message}` };
      }
      return { code: 'signing_failed', message };
  }
}
