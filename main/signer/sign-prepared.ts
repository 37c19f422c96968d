/**
 * signPrepared: validate -> token and certificate -> PIN window -> C_Login + sign (one PAdES revision into
 * the named field) -> logout. The PIN lives in one local variable for the duration of the one signSha256
 * call (which logs in, signs and logs out in one session) and is dropped afterwards; it is never logged,
 * never part of a message and never retried.
 */
import { createHash } from 'node:crypto';
import type { BridgeResult, SignPreparedResult } from '../../common/desktop-bridge.js';
import { buildChain, tokenKey } from '../../native/index.js';
import { signPades, type HttpTransport, type PadesTarget, type SignatureProvider } from '../../pdf/index.js';
import { DesktopFailure, failed, ok, toDesktopError, type SigningPhase } from './outcome.js';
import type { PinPrompt } from './pin-prompt.js';
import { busyKeyOf, chooseCertificate } from './batch-token.js';
import { validateRequest } from './request.js';
import { selectorOf, type FoundToken, type TokenSet } from './token-set.js';

export interface SigningSettings {
  readonly tokens: TokenSet;
  readonly pinPrompt: PinPrompt;
  readonly now: () => Date;
  readonly maxPdfBytes: number;
  /** B-B (default), or B-T with a timestamp authority reached through the caller's transport. */
  readonly level: Extract<PadesTarget, 'B-B' | 'B-T'>;
  readonly timestamp?: { readonly tsaUrl: string; readonly transport: HttpTransport };
  /** Tokens with a signing in progress (busy: one signing at a time per token). */
  readonly busy: Set<string>;
}

function stillInserted(tokens: FoundToken[], wanted: FoundToken): FoundToken | undefined {
  return tokens.find((t) => t.module === wanted.module && tokenKey(t.token) === tokenKey(wanted.token));
}

export async function signPrepared(
  settings: SigningSettings,
  request: unknown,
): Promise<BridgeResult<SignPreparedResult>> {
  let phase: SigningPhase = 'before-pin';
  let busyKey: string | undefined;
  let release: (() => void) | undefined;
  // The PIN's only home: handed to signSha256 once, dropped in `finally` whatever happens.
  let secret: string | null | undefined;
  try {
    const valid = validateRequest(request, settings.maxPdfBytes);
    const chosen = await chooseCertificate(settings, { slotId: valid.slotId, certificateId: valid.certificateId });
    release = chosen.release;
    busyKey = busyKeyOf(chosen.found);
    const { found, certificate } = chosen;

    secret = await settings.pinPrompt.askPin({
      ...chosen.pinContext,
      documentName: valid.documentName,
      documentSha256: createHash('sha256').update(valid.pdf).digest('hex'),
    });
    phase = 'after-pin';
    if (secret === null) throw new DesktopFailure('pin_cancelled', 'Signing was cancelled; nothing was signed.');
    const present = stillInserted(await settings.tokens.tokens(), found);
    if (!present) {
      throw new DesktopFailure(
        'token_removed',
        'The token was removed before signing finished. Insert it and sign again; nothing was signed.',
      );
    }

    const provider: SignatureProvider = {
      certificate: certificate.der,
      chain: buildChain(certificate.der, chosen.pool),
      keyType: certificate.keyType,
      async sign(data) {
        const once = secret;
        secret = undefined;
        if (typeof once !== 'string') {
          throw new DesktopFailure('signing_failed', 'The PIN was asked for one signature only.');
        }
        const result = await present.module.signSha256({
          token: selectorOf(present.token),
          certFingerprint: certificate.fingerprintSha256,
          pin: once,
          data,
          now: settings.now(),
        });
        return result.signature;
      },
    };
    const signingTime = settings.now();
    const signed = await signPades(valid.pdf, provider, {
      level: settings.level,
      field: { name: valid.fieldName },
      signingTime,
      timeZoneOffsetMinutes: -signingTime.getTimezoneOffset(),
      name: certificate.subjectCommonName ?? certificate.subject,
      ...(valid.reason ? { reason: valid.reason } : {}),
      ...(valid.location ? { location: valid.location } : {}),
      ...(settings.timestamp ? { tsaUrl: settings.timestamp.tsaUrl, transport: settings.timestamp.transport } : {}),
    });
    if (!signed.bytes.subarray(0, valid.pdf.length).equals(valid.pdf)) {
      throw new DesktopFailure('signing_failed', 'The signed PDF does not keep the prepared bytes intact.');
    }
    return ok({
      pdfBase64: signed.bytes.toString('base64'),
      signerSubject: certificate.subject,
      signedAt: signingTime.toISOString(),
    });
  } catch (error) {
    const desktop = toDesktopError(error, phase);
    if (desktop.code === 'pin_incorrect' && busyKey !== undefined) {
      return pinIncorrect(settings, busyKey, desktop.triesLeft ?? null);
    }
    return failed(desktop.code, desktop.message, desktop.triesLeft);
  } finally {
    secret = undefined;
    release?.();
  }
}

/** After a wrong PIN the token's flags tell whether it is now locked or down to its final try. */
async function pinIncorrect(
  settings: SigningSettings,
  busyKey: string,
  triesLeft: number | null,
): Promise<BridgeResult<SignPreparedResult>> {
  const now = (await settings.tokens.tokens().catch(() => [])).find((t) => busyKeyOf(t) === busyKey);
  if (now?.token.flags.pinLocked) {
    return failed(
      'pin_locked',
      "The PIN was incorrect and the token is now locked. Unblock it with the token vendor's tool (SO PIN); nothing was signed.",
    );
  }
  const left = now?.token.flags.pinFinalTry ? 1 : triesLeft;
  return failed(
    'pin_incorrect',
    left === 1
      ? 'The PIN is incorrect. One more wrong PIN locks the token. Nothing was signed.'
      : 'The PIN is incorrect. Nothing was signed.',
    left,
  );
}
