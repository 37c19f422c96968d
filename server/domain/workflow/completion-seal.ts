/**
 * The completion lock (issue 26, point 1): completion's first revision is an approval signature by the
 * installation seal (the test seal for a test envelope) in a new invisible field, carrying FieldMDP /All
 * (ISO 32000-1 12.8.2.4): after it no form field may change, so a value rewritten once the envelope is
 * completed is flagged by every validator that reads FieldMDP (pyHanko, Acrobat, `mohar verify`), not only
 * by Mohar. It comes before the /DSS and the document timestamp, which ISO 32000-2 exempts from FieldMDP
 * and DocMDP alike. B-T when a TSA is configured, like the seal's other signatures.
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
 * The sealed revision over `bytes`, judged by the revision guard like every act (it may only sign its own
 * field). Null for a document its uploader certified with DocMDP P=1: no change at all is allowed after
 * that, so nothing can be rewritten and nothing may be signed.
 */
export async function sealCompletion(
  ctx: Context,
  bytes: Buffer,
  mode: DataMode | undefined,
  at: Date,
): Promise<CompletionSeal | null> {
  const options: PadesOptions = {
    level: ctx.config.tsaUrl ? 'B-T' : 'B-B',
    field: { invisible: true, name: COMPLETION_FIELD },
    lock: { action: 'All' },
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
  await assertOwnRevisionOffLoop(ctx.pdf, 'completion seal', bytes, signed.bytes, { signingField: COMPLETION_FIELD });
  return { bytes: signed.bytes, act: 'sealed' };
}
