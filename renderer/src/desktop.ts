/**
 * Mohar Desktop's bridge (window.moharDesktop), when the page runs inside it; the contract is common/desktop-bridge.ts.
 */
import {
  DESKTOP_BRIDGE_GLOBAL,
  DESKTOP_BRIDGE_VERSION,
  type DesktopError,
  type MoharDesktopBridge,
} from '../../common/desktop-bridge';
import { DESKTOP_BATCH_GLOBAL, DESKTOP_BATCH_VERSION, type MoharDesktopBatch } from '../../common/desktop-batch';
import type { Translate } from './i18n/i18n';
import { en, type StringKey } from './i18n/strings';

export function desktopBridge(): MoharDesktopBridge | null {
  const candidate = (window as unknown as Record<string, unknown>)[DESKTOP_BRIDGE_GLOBAL] as
    Partial<MoharDesktopBridge> | undefined;
  if (!candidate || candidate.version !== DESKTOP_BRIDGE_VERSION) return null;
  if (
    typeof candidate.listTokens !== 'function' ||
    typeof candidate.signPrepared !== 'function' ||
    typeof candidate.watchTokens !== 'function'
  ) {
    return null;
  }
  return candidate as MoharDesktopBridge;
}

/** Mohar Desktop's batch and token doctor (window.moharDesktopBatch), when the page runs in a desktop that has them. */
export function desktopBatch(): MoharDesktopBatch | null {
  const candidate = (window as unknown as Record<string, unknown>)[DESKTOP_BATCH_GLOBAL] as
    Partial<MoharDesktopBatch> | undefined;
  if (!candidate || candidate.version !== DESKTOP_BATCH_VERSION) return null;
  const calls = [candidate.list, candidate.sign, candidate.clear, candidate.doctor];
  return calls.every((c) => typeof c === 'function') ? (candidate as MoharDesktopBatch) : null;
}

/** A coded desktop error in the signer's words (wrong PIN with the tries left, locked, removed...). */
export function desktopErrorMessage(error: CodedMessage, t: Translate): string {
  const base = knownDesktopReason(error, t) ?? t('dsc.error.signing_failed', { message: error.message });
  if (error.code === 'pin_incorrect' && typeof error.triesLeft === 'number') {
    return `${base} ${t('dsc.error.triesLeft', { count: error.triesLeft })}`;
  }
  return base;
}

/** A code and the desktop's English words for it: a DesktopError, a batch item's reason, why a batch stopped. */
export interface CodedMessage {
  readonly code: DesktopError['code'] | (string & {});
  readonly message: string;
  readonly triesLeft?: number | null;
}

/** The page's own sentence for a desktop code it knows (in the page's language), else undefined. */
export function knownDesktopReason(reason: CodedMessage, t: Translate): string | undefined {
  const key = `dsc.error.${reason.code}`;
  // The translator looks a key up without a fallback: ask the catalogue first whether the page has a sentence.
  return key in en ? t(key as StringKey, { message: reason.message }) : undefined;
}
