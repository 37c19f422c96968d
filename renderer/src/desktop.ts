/**
 * Mohar Desktop's bridge (window.moharDesktop), when the page runs inside it; the contract is common/desktop-bridge.ts.
 */
import {
  DESKTOP_BRIDGE_GLOBAL,
  DESKTOP_BRIDGE_VERSION,
  type DesktopError,
  type MoharDesktopBridge,
} from '../../common/desktop-bridge';
import type { Translate } from './i18n/i18n';
import type { StringKey } from './i18n/strings';

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

/** A coded desktop error in the signer's words (wrong PIN with the tries left, locked, removed...). */
export function desktopErrorMessage(error: DesktopError, t: Translate): string {
  const key = `dsc.error.${error.code}` as StringKey;
  const text = t(key, { message: error.message });
  const base = text === key ? t('dsc.error.signing_failed', { message: error.message }) : text;
  if (error.code === 'pin_incorrect' && typeof error.triesLeft === 'number') {
    return `${base} ${t('dsc.error.triesLeft', { count: error.triesLeft })}`;
  }
  return base;
}
