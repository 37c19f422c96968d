/**
 * The completion lock (issue 26, point 1): completion's first revision is an approval signature by the
 * installation seal (the test seal for a test envelope) in a new invisible field, carrying a FieldMDP lock
 * (ISO 32000-1 12.8.2.4) on every field that no signature locks yet (the signers locked their own): after it no
 * form field of the document may change, so a value rewritten once the envelope is completed is flagged by every
 * validator that reads FieldMDP (pyHanko, Acrobat, `mohar verify`), not only by Mohar. It comes before the /DSS
 * and the document timestamp, which ISO 32000-2 exempts from FieldMDP and DocMDP alike. B-T when a TSA is
 * configured, like the seal's other signatures.
 *
 * /Include of the fields not locked yet, not /All: pyHanko 0.25.1 keeps a lock only over appearance streams
 * written in the locking revision, and re-issuing a field an earlier signature locks would break that signature
 * (pdf/sign/lock-appearances.ts). Together the signers' locks and this one cover every field.
 */
import { MoharError } from '../../../common/errors.js';
import type { PadesOptions } from '../../../pdf/index.js';
import type { DataMode } from '../../storage/schema.js';
import { sealFor, type Context } from '../context.js';
import { assertOwnRevisionOffLoop } from './revision-guard.js';
import { signPadesOffLoop } from './sign-off-loop.js';

/** The invisible signature field of the completion lock. */
export const COMPLETION_FIELD = 'Mohar completion';

export interface CompletionSeal {
  readonly bytes: Buffer;
  readonly act: 'sealed';
}

/**
 * The sealed revision over `bytes`, judged by the revision guard like every act (it may only sign its own field
 * and re-issue the appearances of the fields it locks). Null for a document its uploader certified with DocMDP
 * P=1: no change at all is allowed after that, so nothing can be rewritten and nothing may be signed.
 */
export async function sealCompletion(
  ctx: Context,
  bytes: Buffer,
  mode: DataMode | undefined,
  at: Date,
): Promise<CompletionSeal | null> {
  const unlocked = await ctx.pdf.run('fieldsNotLocked', { bytes });
  const options: PadesOptions = {
    level: ctx.config.tsaUrl ? 'B-T' : 'B-B',
    field: { invisible: true, name: COMPLETION_FIELD },
    // Every field locked already (each by its signer): the seal adds no lock of its own.
    ...(unlocked.length > 0 ? { lock: { action: 'Include', fields: unlocked }, reissueLockedAppearances: true } : {}),
    signingTime: at,
    reason: 'Completed in Mohar: every form field is locked; only validation data may follow this signature',
    ...(ctx.config.tsaUrl ? { tsaUrl: ctx.config.tsaUrl, transport: ctx.transports.timestamps } : {}),
  };
  let signed;
  try {
    signed = await signPadesOffLoop(ctx, bytes, await sealFor(ctx, mode), options);
  } catch (error) {
    if (error instanceof MoharError && error.code === 'document_locked') return null;
    throw error;
  }
  await assertOwnRevisionOffLoop(ctx.pdf, 'completion seal', bytes, signed.bytes, {
    signingField: COMPLETION_FIELD,
    fillableFields: signed.reissuedFields,
    allowAnyLock: true,
  });
  return { bytes: signed.bytes, act: 'sealed' };
}
