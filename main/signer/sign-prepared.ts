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
import { validateRequest } from './request.js';
import { selectorOf, type FoundToken, type TokenSet } from './token-set.js';
import { bridgeCertificates } from './token-view.js';

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
  // The PIN's only home: handed to signSha256 once, dropped in `finally` whatever happens.
  let secret: string | null | undefined;
  try {
    const valid = validateRequest(request, settings.maxPdfBytes);
    const found = await settings.tokens.find(valid.slotId);
    if (!found) {
      throw new DesktopFailure(
        'token_not_found',
        'The token is not inserted (any more). Insert it and choose it again.',
      );
    }
    const key = `${found.module.path}\u0000${tokenKey(found.token)}`;
    if (settings.busy.has(key)) {
      throw new DesktopFailure(
        'busy',
        `Token "${found.token.label}" is already signing another document; try again when it is done.`,
      );
    }
    settings.busy.add(key);
    busyKey = key;

    const all = await settings.tokens.certificates(found);
    const chosen = bridgeCertificates(all, settings.now()).find((c) => c.view.id === valid.certificateId);
    if (!chosen) {
      throw new DesktopFailure(
        'certificate_not_found',
        `Token "${found.token.label}" holds no certificate ${valid.certificateId}.`,
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

    secret = await settings.pinPrompt.askPin({
      token: { label: found.token.label, serialNumber: found.token.serial, moduleName: found.moduleName },
      certificate: { subject: chosen.view.subject, issuer: chosen.view.issuer, notAfter: chosen.view.notAfter },
      documentName: valid.documentName,
      documentSha256: createHash('sha256').update(valid.pdf).digest('hex'),
      finalTry: found.token.flags.pinFinalTry,
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

    const certificate = chosen.native;
    const provider: SignatureProvider = {
      certificate: certificate.der,
      chain: buildChain(
        certificate.der,
        all.filter((c) => c.fingerprintSha256 !== certificate.fingerprintSha256).map((c) => c.der),
      ),
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
    if (busyKey !== undefined) settings.busy.delete(busyKey);
  }
}

/** After a wrong PIN the token's flags tell whether it is now locked or down to its final try. */
async function pinIncorrect(
  settings: SigningSettings,
  busyKey: string,
  triesLeft: number | null,
): Promise<BridgeResult<SignPreparedResult>> {
  const now = (await settings.tokens.tokens().catch(() => [])).find(
    (t) => `${t.module.path}\u0000${tokenKey(t.token)}` === busyKey,
  );
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
