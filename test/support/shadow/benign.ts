/**
 * Benign controls: revisions an honest signer (or their token software) produces, which the
 * allow-list must accept, so that refusing the attacks is not simply refusing everything.
 */
import { PdfReader } from '../../../pdf/document.js';
import { fieldMdpReference } from '../../../pdf/field-lock.js';
import { PdfArray, PdfDict, type PdfRef } from '../../../pdf/objects.js';
import { appendDss } from '../../../pdf/sign/dss.js';
import { signPades } from '../../../pdf/sign/pades.js';
import { dict, makeStream } from '../../../pdf/write/serialize.js';
import { makePng } from '../png.js';
import type { BenignCase, CaseContext } from './kit.js';
import { signedRevision } from './revision.js';

const signingTime = new Date('2026-11-25T06:00:00Z');
const plain = async (ctx: CaseContext): Promise<Buffer> =>
  (await signPades(ctx.prepared, ctx.signer, { level: 'B-B', field: { name: ctx.signingField }, signingTime })).bytes;

export const BENIGN_CASES: readonly BenignCase[] = [
  { name: "a plain signature of the signer's field (signPades)", upload: true, build: plain },
  {
    name: "a plain signature of the signer's field (the corpus's own revision builder, no attack)",
    upload: true,
    build: (ctx) => signedRevision(ctx.prepared, ctx.signingField, ctx.signer),
  },
  {
    // The field's /Lock where prepareForm wrote one; a USB DSC field has none: the lock is of the signer's own.
    name: "a signature whose FieldMDP /Reference locks the signer's own text field (its /Lock, as pyHanko writes it)",
    upload: true,
    build: (ctx) => {
      const catalog = PdfReader.open(ctx.prepared).trailer.get('Root') as PdfRef;
      const lock = { action: 'Include', fields: [ctx.fillableField] } as const;
      return signedRevision(ctx.prepared, ctx.signingField, ctx.signer, {
        sig: (sig) => sig.set('Reference', new PdfArray([fieldMdpReference(lock, catalog)])),
      });
    },
  },
  {
    name: 'the signature with a /DSS in the same revision (token software adding LTV data)',
    upload: true,
    build: (ctx) =>
      signedRevision(ctx.prepared, ctx.signingField, ctx.signer, {
        attack: (u, t) => {
          const certs = ctx.certificates.map((der) => u.add(makeStream(new PdfDict(), der)));
          u.editDict(t.catalog).set('DSS', u.add(dict({ Certs: new PdfArray(certs) })));
        },
      }),
  },
  {
    name: 'the signature, then a /DSS revision (appendDss)',
    // Two revisions: PUT …/signed takes exactly one (issue 11 §2), so this is judged here only.
    upload: false,
    build: async (ctx) => appendDss(await plain(ctx), { certs: [...ctx.certificates], vri: [] }).bytes,
  },
  {
    name: "the signature with the signer's own text field filled (judged with fillableFields)",
    upload: false,
    fillable: (ctx) => [ctx.fillableField],
    build: async (ctx) =>
      (
        await signPades(ctx.prepared, ctx.signer, {
          level: 'B-B',
          field: { name: ctx.signingField },
          signingTime,
          formValues: { [ctx.fillableField]: 'Delivered to Pune' },
        })
      ).bytes,
  },
  {
    name: 'a signature whose appearance carries an image XObject and a font used only there',
    upload: true,
    build: async (ctx) => {
      const image = makePng(40, 20, (x, y) => [x * 6, y * 12, 128, 255]);
      return (
        await signPades(ctx.prepared, ctx.signer, {
          level: 'B-B',
          field: { name: ctx.signingField },
          signingTime,
          appearance: { image, lines: ['Asha Attacker', 'Approved'] },
        })
      ).bytes;
    },
  },
];
