/**
 * The console's words for the server's refusals (docs/errors.md): a sentence per code in each language, looked up
 * by the problem's stable `code`; the server's `detail` is only ever shown beneath it, as a secondary line.
 */
import type { Language } from '../../../i18n/strings';
import type { RefusalWords, WordedErrorCode } from './codes';
import { refusalsEn } from './en';
import { refusalsHi } from './hi';

export type { RefusalWords, WordedErrorCode } from './codes';

export const REFUSALS: Readonly<Record<Language, RefusalWords>> = { en: refusalsEn, hi: refusalsHi };

/** For a code the console does not know (a newer server): the detail line then carries the explanation. */
export const UNKNOWN_REFUSAL: Readonly<Record<Language, string>> = {
  en: 'The server refused this.',
  hi: 'सर्वर ने इसे अस्वीकार किया।',
};

export function isWordedCode(code: string): code is WordedErrorCode {
  return Object.hasOwn(refusalsEn, code);
}
