/**
 * Permissions smuggled into the signer's revision: a signature that certifies (DocMDP) although a
 * certification must be the document's first signature, a signature that locks every field (FieldMDP)
 * (or another recipient's) so that the signers after them break it by filling or signing (a FieldMDP lock may
 * name no more than the /Lock Mohar prepared on the signer's field), and a /Lock on the field itself.
 * Each would let one signer decide what later signers and Mohar may still do.
 * A FieldMDP lock is an upload rule ('policy'): a standalone verifier, like pyHanko, accepts any lock in a later
 * approval signature (it only constrains what follows that signature), and reports that signature broken when a
 * locked field changes after it.
 */
import { PdfArray, type PdfDict } from '../../../pdf/objects.js';
import { dict, name } from '../../../pdf/write/serialize.js';
import { textString } from '../../../pdf/write/text.js';
import type { CaseContext, ShadowCase } from './kit.js';
import { signedRevision } from './revision.js';

const transform = (method: 'DocMDP' | 'FieldMDP', params: PdfDict): PdfArray =>
  new PdfArray([dict({ Type: name('SigRef'), TransformMethod: name(method), TransformParams: params })]);
const withReference = (ctx: CaseContext, reference: PdfArray): Promise<Buffer> =>
  signedRevision(ctx.prepared, ctx.signingField, ctx.signer, { sig: (sig) => sig.set('Reference', reference) });
/** The signer's signature with a FieldMDP /Include of `fields`. */
const lockingInclude = (ctx: CaseContext, fields: readonly string[]): Promise<Buffer> =>
  withReference(
    ctx,
    transform(
      'FieldMDP',
      dict({
        Type: name('TransformParams'),
        Action: name('Include'),
        Fields: new PdfArray(fields.map((f) => textString(f))),
        V: name('1.2'),
      }),
    ),
  );

export const PERMISSION_CASES: readonly ShadowCase[] = [
  {
    name: 'permissions: the signer’s signature carries a DocMDP transform (a second certification, P=1)',
    attack: 'catalog',
    reason: /Reference|DocMDP|certif/i,
    wellFormed: true,
    where: 'signing-revision',
    build: (ctx) =>
      withReference(ctx, transform('DocMDP', dict({ Type: name('TransformParams'), P: 1, V: name('1.2') }))),
  },
  {
    name: 'permissions: the signer’s signature carries a FieldMDP transform locking every field',
    attack: 'policy',
    reason: /Reference|FieldMDP|lock/i,
    wellFormed: true,
    where: 'signing-revision',
    build: (ctx) =>
      withReference(
        ctx,
        transform('FieldMDP', dict({ Type: name('TransformParams'), Action: name('All'), V: name('1.2') })),
      ),
  },
  {
    name: 'permissions: the signer’s signature carries a FieldMDP /Include of the whole “mohar” field tree (beyond its /Lock)',
    attack: 'policy',
    reason: /Reference|FieldMDP|lock/i,
    wellFormed: true,
    where: 'signing-revision',
    // Every recipient's fields (the parent node "mohar" covers them all), not only the signer's own.
    build: (ctx) => lockingInclude(ctx, [ctx.fillableField, 'mohar']),
  },
  {
    name: 'permissions: the signer’s signature carries a FieldMDP /Include of another recipient’s field',
    attack: 'policy',
    needsOtherRecipient: true,
    reason: /Reference|FieldMDP|lock/i,
    wellFormed: true,
    where: 'signing-revision',
    build: (ctx) => lockingInclude(ctx, [ctx.foreignField]),
  },
  {
    name: 'permissions: a /Lock dictionary added to the signer’s field',
    attack: 'catalog',
    reason: /Lock/,
    wellFormed: true,
    where: 'signing-revision',
    build: (ctx) =>
      signedRevision(ctx.prepared, ctx.signingField, ctx.signer, {
        attack: (u, t) => u.editDict(t.field).set('Lock', dict({ Type: name('SigFieldLock'), Action: name('All') })),
      }),
  },
];
