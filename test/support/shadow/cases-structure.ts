/**
 * The attacks of "1 Trillion Dollar Refund" (Mladenov et al., CCS 2019) on the signer's revision:
 * incremental saving (ISA: a change after the signature, objects redefined under a rebuilt table,
 * object numbers freed or reused), signature wrapping (SWA: unsigned bytes inside the /ByteRange gap,
 * a second /Contents), universal signature forgery (USF: /Contents and /ByteRange emptied, removed,
 * zeroed, overlapping, not hex), and catalog tricks that change what a viewer does on opening.
 */
import { PdfArray, PdfDict, PdfRef, PdfString } from '../../../pdf/objects.js';
import { signPades } from '../../../pdf/sign/pades.js';
import { editAcroForm } from '../../../pdf/write/form.js';
import type { IncrementalUpdate } from '../../../pdf/write/incremental.js';
import { dict, makeStream, name } from '../../../pdf/write/serialize.js';
import { rewriteXref, shadowContent, type CaseContext, type ShadowCase } from './kit.js';
import { copyOf, findTargets, plainRevision, signedRevision, type RevisionHooks, type Targets } from './revision.js';

const signWith = (ctx: CaseContext, hooks: RevisionHooks): Promise<Buffer> =>
  signedRevision(ctx.prepared, ctx.signingField, ctx.signer, hooks);
const js = (code: string): PdfDict =>
  dict({ S: name('JavaScript'), JS: new PdfString(Buffer.from(code, 'latin1'), false) });
const onCatalog = (
  ctx: CaseContext,
  change: (catalog: PdfDict, u: IncrementalUpdate, t: Targets) => void,
): Promise<Buffer> => signWith(ctx, { attack: (u, t) => change(u.editDict(t.catalog), u, t) });

/** ISA with a rebuilt table: every object of the file listed again, page 1 rewritten unchanged. */
function rebuiltXref(ctx: CaseContext): Promise<Buffer> {
  const prior = findTargets(ctx.prepared, ctx.signingField).reader;
  return signWith(ctx, {
    attack: (u, t) => u.set(t.page1, copyOf(t, t.page1)),
    tail: (bytes, layout) =>
      rewriteXref(bytes, layout, (rows) => {
        for (const [num, e] of prior.xref.entries) {
          if (!rows.has(num) && e.type === 'offset') rows.set(num, { offset: e.offset, gen: e.gen, free: false });
        }
        rows.set(0, { offset: 0, gen: 65535, free: true });
      }),
  });
}

/** ISA with a number reused: the content stream's number freed, then given (generation 1) to a new object. */
function reusedNumber(ctx: CaseContext): Promise<Buffer> {
  let contentNum = 0;
  let added = 0;
  return signWith(ctx, {
    attack: (u, t) => {
      contentNum = t.content.num;
      added = u.add(makeStream(new PdfDict(), shadowContent())).num;
    },
    tail: (bytes, layout) => {
      const at = layout.offsets.get(added)!;
      const header = `${added} 0 obj`;
      const reused = `${contentNum} 1 obj`;
      bytes.write(`${contentNum}${' '.repeat(1 + header.length - reused.length)}1 obj`, at, 'latin1');
      return rewriteXref(bytes, layout, (rows) => {
        rows.delete(added);
        rows.set(added, { offset: 0, gen: 0, free: true });
        rows.set(contentNum, { offset: at, gen: 1, free: false });
      });
    },
  });
}

export const STRUCTURE_CASES: readonly ShadowCase[] = [
  {
    name: 'ISA: a valid signature, then a revision rewriting page 1 appended after it',
    attack: 'ISA',
    reason: /revision|after|content|stream|page/i,
    wellFormed: true,
    where: 'after-signature',
    build: async (ctx) => {
      const signed = await signWith(ctx, {});
      return plainRevision(signed, ctx.signingField, (u, t) =>
        u.set(t.content, makeStream(new PdfDict(), shadowContent())),
      );
    },
  },
  {
    name: 'ISA: objects redefined without change under a rebuilt xref table',
    attack: 'ISA',
    reason: /xref|redefin|page|rebuilt/i,
    wellFormed: true,
    where: 'signing-revision',
    build: rebuiltXref,
  },
  {
    name: "ISA: page 1's content stream freed in the xref",
    attack: 'ISA',
    reason: /free/i,
    wellFormed: true,
    where: 'signing-revision',
    build: (ctx) => {
      const num = findTargets(ctx.prepared, ctx.signingField).content.num;
      return signWith(ctx, {
        tail: (bytes, layout) => rewriteXref(bytes, layout, (rows) => rows.set(num, { offset: 0, gen: 1, free: true })),
      });
    },
  },
  {
    name: 'ISA: an object number freed and reused with generation 1',
    attack: 'ISA',
    reason: /free|reuse|generation|content/i,
    wellFormed: true,
    where: 'signing-revision',
    build: reusedNumber,
  },
  {
    name: 'SWA: the /ByteRange gap also hides an unsigned content stream the page draws',
    attack: 'SWA',
    reason: /content stream|contents/i,
    wellFormed: true,
    where: 'signature-dictionary',
    build: (ctx) => {
      let injected = 0;
      return signWith(ctx, {
        attack: (u, t) => {
          injected = u.add(makeStream(new PdfDict(), shadowContent())).num;
          u.editDict(t.page1).set('Contents', new PdfArray([t.content, new PdfRef(injected, 0)]));
        },
        byteRange: (layout, length) => {
          const after = [...layout.offsets.values(), layout.startxref]
            .filter((o) => o > layout.offsets.get(injected)!)
            .sort((x, y) => x - y)[0]!;
          const ranges: [number, number, number, number] = [0, layout.a, after, length - after];
          return { text: `[${ranges.join(' ')}]`, signed: ranges };
        },
      });
    },
  },
  {
    name: 'SWA: a second /Contents entry in the signature dictionary',
    attack: 'SWA',
    reason: /contents|signature/i,
    wellFormed: false,
    where: 'signature-dictionary',
    build: (ctx) =>
      signWith(ctx, {
        sig: (sig) => sig.set('Xontents', new PdfString(Buffer.alloc(64, 0x30), true)),
        tail: (bytes, layout) => {
          const at = bytes.indexOf('/Xontents', layout.b, 'latin1');
          bytes.write('/Contents', at, 'latin1');
          return bytes;
        },
      }),
  },
  {
    name: 'USF: empty /Contents <>',
    attack: 'USF',
    reason: /contents|signature|empty/i,
    wellFormed: true,
    where: 'signature-dictionary',
    build: (ctx) => signWith(ctx, { reserve: 0 }),
  },
  {
    name: 'USF: /ByteRange removed',
    attack: 'USF',
    reason: /byterange|signature/i,
    wellFormed: true,
    where: 'signature-dictionary',
    build: (ctx) => signWith(ctx, { byteRange: (l, n) => ({ text: null, signed: [0, l.a, l.b, n - l.b] }) }),
  },
  {
    name: 'USF: /ByteRange null',
    attack: 'USF',
    reason: /byterange|signature/i,
    wellFormed: true,
    where: 'signature-dictionary',
    build: (ctx) => signWith(ctx, { byteRange: (l, n) => ({ text: 'null', signed: [0, l.a, l.b, n - l.b] }) }),
  },
  {
    name: 'USF: /ByteRange [0 0 0 0]',
    attack: 'USF',
    reason: /byterange|signature/i,
    wellFormed: true,
    where: 'signature-dictionary',
    build: (ctx) => signWith(ctx, { byteRange: (l, n) => ({ text: '[0 0 0 0]', signed: [0, l.a, l.b, n - l.b] }) }),
  },
  {
    name: 'USF: overlapping /ByteRange ranges',
    attack: 'USF',
    reason: /byterange|overlap|signature/i,
    wellFormed: true,
    where: 'signature-dictionary',
    build: (ctx) =>
      signWith(ctx, {
        byteRange: (l, n) => ({ text: `[0 ${l.b} ${l.a} ${n - l.a}]`, signed: [0, l.b, l.a, n - l.a] }),
      }),
  },
  {
    name: 'USF: /Contents a literal string, not hex',
    attack: 'USF',
    reason: /contents|hex|signature/i,
    wellFormed: true,
    where: 'signature-dictionary',
    build: (ctx) => signWith(ctx, { literalContents: true }),
  },
  {
    name: 'catalog: /OpenAction JavaScript',
    attack: 'catalog',
    reason: /OpenAction|catalog/i,
    wellFormed: true,
    where: 'signing-revision',
    build: (ctx) => onCatalog(ctx, (c) => c.set('OpenAction', js("app.alert('signed')"))),
  },
  {
    name: 'catalog: document /AA (will-close JavaScript)',
    attack: 'catalog',
    reason: /AA|catalog|action/i,
    wellFormed: true,
    where: 'signing-revision',
    build: (ctx) => onCatalog(ctx, (c) => c.set('AA', dict({ WC: js('this.dirty = false') }))),
  },
  {
    name: 'catalog: JavaScript in /Names',
    attack: 'catalog',
    reason: /Names|JavaScript|catalog/i,
    wellFormed: true,
    where: 'signing-revision',
    build: (ctx) =>
      onCatalog(ctx, (c, u) =>
        c.set(
          'Names',
          dict({ JavaScript: dict({ Names: new PdfArray([new PdfString(Buffer.from('x'), false), u.add(js('1'))]) }) }),
        ),
      ),
  },
  {
    name: 'catalog: AcroForm /XFA added',
    attack: 'catalog',
    reason: /XFA|AcroForm/i,
    wellFormed: true,
    where: 'signing-revision',
    build: (ctx) =>
      signWith(ctx, {
        attack: (u) =>
          editAcroForm(u).set(
            'XFA',
            u.add(makeStream(new PdfDict(), Buffer.from('<xdp:xdp xmlns:xdp="http://ns.adobe.com/xdp/"/>'))),
          ),
      }),
  },
  {
    name: 'catalog: AcroForm /NeedAppearances true',
    attack: 'catalog',
    reason: /NeedAppearances|AcroForm/i,
    wellFormed: true,
    where: 'signing-revision',
    build: (ctx) => signWith(ctx, { attack: (u) => editAcroForm(u).set('NeedAppearances', true) }),
  },
  {
    name: "policy: another recipient's field filled in the signing revision",
    attack: 'policy',
    reason: /field|form/i,
    wellFormed: true,
    where: 'signing-revision',
    fillable: (ctx) => [ctx.fillableField],
    build: async (ctx) =>
      (
        await signPades(ctx.prepared, ctx.signer, {
          level: 'B-B',
          field: { name: ctx.signingField },
          signingTime: new Date(),
          formValues: { [ctx.foreignField]: 'Not yours to fill' },
        })
      ).bytes,
  },
  {
    name: 'policy: the signature in a new field instead of the signer’s',
    attack: 'policy',
    reason: /field|signature|widget/i,
    wellFormed: true,
    where: 'signing-revision',
    build: async (ctx) =>
      (
        await signPades(ctx.prepared, ctx.signer, {
          level: 'B-B',
          field: { invisible: true, name: 'Elsewhere' },
          signingTime: new Date(),
        })
      ).bytes,
  },
];
