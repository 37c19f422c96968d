/**
 * Certification at send: the prepared document (the upload plus its form fields) gets a certification
 * signature by the installation seal, DocMDP P=2, in the revision after the fields. From then on every
 * validator (Acrobat, pyHanko, EU DSS), not only Mohar, flags a later change that is neither form
 * filling nor signing; everything Mohar itself appends later (signers' values and signatures, the DSC
 * token's signature, /DSS and the document timestamp at completion) is allowed at P=2.
 *
 * Skipped, with the reason kept on the envelope's document, when the server turns it off or when the
 * upload already carries a signature or a certification: a certification must be the first signature
 * of a document (ISO 32000-1 12.8.2.2.1), and certifying over someone else's signature would claim
 * authorship of what they signed.
 */
import type { FormFieldLayout, PadesOptions } from '../../../pdf/index.js';
import { sealFor, type Context } from '../context.js';
import type { DataMode } from '../../storage/schema.js';
import { assertOwnRevisionOffLoop } from './revision-guard.js';
import { prepareOptionsOf, sealPrepared, timestampAuthority } from './sign-off-loop.js';

/** The invisible signature field that holds the certification. */
export const CERTIFICATION_FIELD = 'Mohar certification';
/** DocMDP P=2: form filling and signing allowed, nothing else. */
const PERMISSION = 2;

export const SKIPPED = {
  disabled: 'certification at send is turned off on this server (MOHAR_CERTIFY_AT_SEND=0)',
  signed: 'the uploaded PDF already carries a signature',
  certified: 'the uploaded PDF is already certified (DocMDP)',
} as const;

export type Certification =
  { readonly certified: true; readonly bytes: Buffer } | { readonly certified: false; readonly skipped: string };

export interface PreparedDocument {
  /** The upload with Mohar's form fields (the upload itself when the layout is empty). */
  readonly bytes: Uint8Array;
  readonly certification: Certification;
}

/**
 * Prepares one document at send: its form fields (one revision over the upload), then the certification
 * (a second revision), unless the server turns it off or the upload is signed or certified already.
 * The PDF work (the fields, the certification's revision up to its digest) runs in the worker pool; the
 * seal signs here. B-T when a TSA is configured, like the electronic act's seal signatures; a TSA that is
 * down fails the send (nothing is stored), as it would fail any act.
 * A test envelope's document gets the TEST mark on every page (pdf/prepare/test-mark.ts) in a revision before
 * the certification, and is certified by the test seal (issue 16).
 * The certification also locks (FieldMDP) every form field the upload brought that no recipient holds (`held`
 * names the upload's fields recipients sign in): a field of the sender's own, left empty over the page, could
 * otherwise be filled after completion with an appearance that hides what was signed (issue 26). Locked, not
 * flattened: Mohar draws nothing into the sender's pages (the fields, their values and what they show stay as
 * uploaded, readable by form tools), and the lock is what standard validators check (docs/signing.md).
 */
export async function prepareDocument(
  ctx: Context,
  original: Uint8Array,
  layout: FormFieldLayout[],
  at: Date,
  mode: DataMode = 'live',
  held: readonly string[] = [],
): Promise<PreparedDocument> {
  const options: PadesOptions = {
    level: ctx.config.tsaUrl ? 'B-T' : 'B-B',
    field: { invisible: true, name: CERTIFICATION_FIELD },
    certify: { permission: PERMISSION },
    // The sender's fields it locks keep their look; their appearances are re-issued for pyHanko (lock-appearances.ts).
    reissueLockedAppearances: true,
    signingTime: at,
    reason: 'Certified by Mohar at send: only form filling and signing are allowed after this signature',
    ...(ctx.config.tsaUrl ? { tsaUrl: ctx.config.tsaUrl, transport: ctx.transports.timestamps } : {}),
  };
  const tsa = timestampAuthority(options);
  const certify = ctx.config.certifyAtSend ? prepareOptionsOf(options, tsa !== undefined) : null;
  const testMark = mode === 'test';
  if (layout.length === 0 && !certify && !testMark) {
    return { bytes: original, certification: { certified: false, skipped: SKIPPED.disabled } };
  }
  const sent = await ctx.pdf.run('prepareSend', { original, layout, certify, testMark, held });
  const bytes = sent.form ?? original;
  if (!certify) return { bytes, certification: { certified: false, skipped: SKIPPED.disabled } };
  if (sent.blocked !== null) return { bytes, certification: { certified: false, skipped: SKIPPED[sent.blocked] } };
  const signed = await sealPrepared(bytes, sent.certification!, await sealFor(ctx, mode), tsa);
  // Like every revision Mohar appends: judged by the allow-list before it is stored (it may only sign this field).
  await assertOwnRevisionOffLoop(ctx.pdf, 'certification at send', bytes, signed, {
    signingField: CERTIFICATION_FIELD,
    fillableFields: sent.certification!.reissuedFields ?? [],
  });
  return { bytes, certification: { certified: true, bytes: signed } };
}
