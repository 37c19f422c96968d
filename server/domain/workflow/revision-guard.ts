/**
 * Every revision Mohar appends itself is judged before it is stored, by the same allow-list an upload
 * faces (pdf/verify/judge.ts): a bug of ours that changed page content, or another signer's field, must
 * fail loudly as an internal error, never end up in a signed document. The policy names what the act
 * may change: the recipient's own fields, their own signature field, validation data.
 */
import { judgeAppendedRevision, type RevisionPolicy } from '../../../pdf/index.js';
import type { PdfInspector } from '../documents/pdf-inspector.js';

export type { RevisionPolicy } from '../../../pdf/index.js';

/**
 * Throws a plain Error (an internal error, HTTP 500; nothing is stored) when `next` is not `prior` plus
 * one revision that only does what `policy` allows. `act` names the act for the log and the message.
 */
export function assertOwnRevision(act: string, prior: Uint8Array, next: Uint8Array, policy: RevisionPolicy): void {
  const judgement = judgeAppendedRevision(prior, next, policy);
  if (!judgement.accepted) {
    throw new Error(
      `internal error: the ${act} revision Mohar built changes more than that act may (${judgement.problem ?? 'refused'}); nothing was stored`,
    );
  }
}

/**
 * assertOwnRevision in the PDF worker pool (pdf-tasks.ts judgeRevision): the judge parses both files, which
 * for a large or hostile original is CPU work the event loop should not do.
 */
export async function assertOwnRevisionOffLoop(
  pdf: PdfInspector,
  act: string,
  prior: Uint8Array,
  next: Uint8Array,
  policy: RevisionPolicy,
): Promise<void> {
  const judgement = await pdf.run('judgeRevision', { prior, next, policy });
  if (!judgement.accepted) {
    throw new Error(
      `internal error: the ${act} revision Mohar built changes more than that act may (${judgement.problem ?? 'refused'}); nothing was stored`,
    );
  }
}
