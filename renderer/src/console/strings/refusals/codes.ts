/**
 * The codes the console words (refusals-en.ts, refusals-hi.ts): every code of the server's ErrorCode union, so a
 * new code without a sentence in both languages does not compile (and test/renderer/refusals.test.ts says which).
 */
import type { ErrorCode } from '../../../../../common/errors';

/**
 * Codes being added to common/errors.ts on branches not merged yet. Worded here ahead of time so the console never
 * shows their raw text; once the union has them this alias adds nothing and may be emptied (`never`).
 */
type UpcomingErrorCode = 'storage_full';

export type WordedErrorCode = ErrorCode | UpcomingErrorCode;

/** One sentence per code, in one language. */
export type RefusalWords = Readonly<Record<WordedErrorCode, string>>;
