/**
 * The token half of a signing, one document (signPrepared) or a batch: the chosen token and certificate checked
 * before the PIN, the token marked busy until the signing or the batch's session ends, and a batch-stopping error
 * in words, with the tries left read from the token flags after a wrong PIN.
 */
import type { BatchSignRequest } from '../../common/desktop-batch.js';
import { tokenKey, type TokenCertificate as NativeCertificate } from '../../native/index.js';
import { DesktopFailure, toDesktopError } from './outcome.js';
import type { PinRequest } from './pin-prompt.js';
import type { SigningSettings } from './sign-prepared.js';
import type { FoundToken } from './token-set.js';
import { bridgeCertificates } from './token-view.js';

export type { SigningSettings } from './sign-prepared.js';

export interface ChosenCertificate {
  readonly found: FoundToken;
  readonly certificate: NativeCertificate;
  /** The token's other certificates, for the chain. */
  readonly pool: Uint8Array[];
  readonly pinContext: Pick<PinRequest, 'token' | 'certificate' | 'finalTry'>;
  /** Ends the token's busy mark. */
  release(): void;
}

type TokenSettings = Pick<SigningSettings, 'tokens' | 'now' | 'busy'>;

/** A token's name in SigningSettings.busy: one signing (or one batch) at a time per token. */
export function busyKeyOf(found: Pick<FoundToken, 'module' | 'token'>): string {
  return `${found.module.path}\u0000${tokenKey(found.token)}`;
}

export async function chooseCertificate(
  settings: TokenSettings,
  request: BatchSignRequest,
): Promise<ChosenCertificate> {
  if (typeof request?.slotId !== 'string' || typeof request.certificateId !== 'string') {
    throw new DesktopFailure('invalid_request', 'Choose a token and a certificate.');
  }
  const found = await settings.tokens.find(request.slotId);
  if (!found) {
    throw new DesktopFailure('token_not_found', 'The token is not inserted (any more). Insert it and choose it again.');
  }
  const key = busyKeyOf(found);
  if (settings.busy.has(key)) {
    throw new DesktopFailure('busy', `Token "${found.token.label}" is already signing; try again when it is done.`);
  }
  settings.busy.add(key);
  const release = (): void => {
    settings.busy.delete(key);
  };
  try {
    const all = await settings.tokens.certificates(found);
    const chosen = bridgeCertificates(all, settings.now()).find((c) => c.view.id === request.certificateId);
    if (!chosen) {
      throw new DesktopFailure(
        'certificate_not_found',
        `Token "${found.token.label}" holds no certificate ${request.certificateId}.`,
      );
    }
    if (!chosen.view.usableForSigning) {
      throw new DesktopFailure(
        'certificate_not_usable',
        `This certificate cannot sign: ${chosen.view.problems.join(' ')}`,
      );
    }
    if (found.token.flags.pinLocked) {
      throw new DesktopFailure(
        'pin_locked',
        "The token PIN is locked. Unblock it with the token vendor's tool (SO PIN); nothing was signed.",
      );
    }
    return {
      found,
      certificate: chosen.native,
      pool: all.filter((c) => c.fingerprintSha256 !== chosen.native.fingerprintSha256).map((c) => c.der),
      pinContext: {
        token: { label: found.token.label, serialNumber: found.token.serial, moduleName: found.moduleName },
        certificate: { subject: chosen.view.subject, issuer: chosen.view.issuer, notAfter: chosen.view.notAfter },
        finalTry: found.token.flags.pinFinalTry,
      },
      release,
    };
  } catch (error) {
    release();
    throw error;
  }
}

/** Why the batch stopped, in words; after a wrong PIN the token flags tell whether it is locked or on its final try. */
export async function pinStop(
  settings: TokenSettings,
  request: BatchSignRequest,
  error: unknown,
): Promise<{ code: string; message: string; triesLeft?: number | null }> {
  const desktop = toDesktopError(error, error instanceof DesktopFailure ? 'before-pin' : 'after-pin');
  if (desktop.code !== 'pin_incorrect') return { code: desktop.code, message: desktop.message };
  const now = await settings.tokens.find(request.slotId).catch(() => undefined);
  if (now?.token.flags.pinLocked) {
    return {
      code: 'pin_locked',
      message:
        "The PIN was incorrect and the token is now locked. Unblock it with the token vendor's tool (SO PIN); nothing was signed.",
    };
  }
  const left = now?.token.flags.pinFinalTry ? 1 : (desktop.triesLeft ?? null);
  const low = now?.token.flags.pinCountLow ? ' The token says few tries are left.' : '';
  return {
    code: 'pin_incorrect',
    message:
      left === 1
        ? 'The PIN is incorrect. One more wrong PIN locks the token. Nothing was signed.'
        : `The PIN is incorrect. Nothing was signed.${low}`,
    triesLeft: left,
  };
}
