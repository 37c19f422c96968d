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
import { signPades, type PadesTarget } from '../../../pdf/sign/pades.js';
import { fetchTransport } from '../../net/http-transport.js';
import type { Context } from '../context.js';
import { assertOwnRevisionOffLoop } from './revision-guard.js';

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
  | { readonly certified: true; readonly bytes: Buffer }
  | { readonly certified: false; readonly skipped: string };

/** Why `original` (the upload, as inspected off the event loop) cannot be certified; null when it can. */
async function reasonToSkip(ctx: Context, original: Uint8Array): Promise<string | null> {
  if (!ctx.config.certifyAtSend) return SKIPPED.disabled;
  const info = await ctx.pdf.inspect(original);
  if (info.docMdpPermission !== null) return SKIPPED.certified;
  if (info.signatureFields.some((f) => f.signed)) return SKIPPED.signed;
  return null;
}

/**
 * Certifies `prepared` (the upload with Mohar's form fields, or the upload itself when it needed none).
 * B-T when a TSA is configured, like the electronic act's seal signatures; a TSA that is down fails the
 * send (nothing is stored), as it would fail any act.
 */
export async function certifyPrepared(ctx: Context, original: Uint8Array, prepared: Uint8Array, at: Date): Promise<Certification> {
  const skipped = await reasonToSkip(ctx, original);
  if (skipped !== null) return { certified: false, skipped };
  const level: PadesTarget = ctx.config.tsaUrl ? 'B-T' : 'B-B';
  const signed = await signPades(prepared, await ctx.seal(), {
    level,
    field: { invisible: true, name: CERTIFICATION_FIELD },
    certify: { permission: PERMISSION },
    signingTime: at,
    reason: 'Certified by Mohar at send: only form filling and signing are allowed after this signature',
    ...(ctx.config.tsaUrl ? { tsaUrl: ctx.config.tsaUrl, transport: fetchTransport() } : {}),
  });
  // Like every revision Mohar appends: judged by the allow-list before it is stored (it may only sign this field).
  await assertOwnRevisionOffLoop(ctx.pdf, 'certification at send', prepared, signed.bytes, { signingField: CERTIFICATION_FIELD });
  return { certified: true, bytes: signed.bytes };
}
