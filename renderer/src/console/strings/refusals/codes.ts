/**
 * The codes the console words (refusals-en.ts, refusals-hi.ts): every code of the server's ErrorCode union, so a
 * new code without a sentence in both languages does not compile (and test/renderer/refusals.test.ts says which).
 */
import type { ErrorCode } from '../../../../../common/errors';

export type WordedErrorCode = ErrorCode;

/** One sentence per code, in one language. */
export type RefusalWords = Readonly<Record<WordedErrorCode, string>>;
