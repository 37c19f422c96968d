/**
 * What went wrong, for a person: the console's sentence for the refusal's code, in the chosen language, and the
 * server's own text as a secondary detail (it names the exact item, but is English and written for developers).
 */
import type { Language } from '../../i18n/strings';
import { ApiError } from '../api';
import { isWordedCode, REFUSALS, UNKNOWN_REFUSAL } from '../strings/refusals';

export interface Refusal {
  /** The sentence to show first. */
  readonly words: string;
  /** The server's detail, when it adds something to the words. */
  readonly detail: string | null;
}

/**
 * A string is a message the page made itself (a local check): shown as is. A network failure (status 0) has
 * `networkText` and no detail: the browser's text says nothing a person can act on.
 */
export function describeRefusal(error: unknown, language: Language, networkText: string): Refusal {
  if (typeof error === 'string') return { words: error, detail: null };
  if (error instanceof ApiError) {
    if (error.status === 0) return { words: networkText, detail: null };
    const words = isWordedCode(error.code) ? REFUSALS[language][error.code] : UNKNOWN_REFUSAL[language];
    const detail = error.message.trim();
    return { words, detail: detail && detail !== words ? detail : null };
  }
  return { words: error instanceof Error ? error.message : String(error), detail: null };
}
