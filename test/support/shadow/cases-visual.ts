/**
 * Shadow attacks (Mainka, Mladenov, Rohlmann, NDSS 2021), in the form an attacker holding the
 * signer's key can mount against a Mohar-prepared document: the same revision that signs the field
 * also HIDES content (an overlay, an enlarged widget, a layer switched off), REPLACES it (a form
 * XObject or a font redefined, a /FreeText overlay) or does both (page content rewritten, a new
 * annotation, an orphan widget, the optional content configuration swapped).
 */
import { PdfArray, PdfDict, PdfStream, PdfString, type PdfRef } from '../../../pdf/objects.js';
import { addAnnotation } from '../../../pdf/write/form.js';
import type { IncrementalUpdate } from '../../../pdf/write/incremental.js';
import { cloneDict, dict, makeStream, name } from '../../../pdf/write/serialize.js';
import { SHADOW_TEXT } from './document.js';
import { boxAppearance, overPrice, shadowContent, type CaseContext, type ShadowCase } from './kit.js';
import { copyOf, signedRevision, type Targets } from './revision.js';

const sign = (ctx: CaseContext, attack: (update: IncrementalUpdate, t: Targets) => void): Promise<Buffer> =>
  signedRevision(ctx.prepared, ctx.signingField, ctx.signer, { attack });

/** The catalog's /OCProperties /D with new /ON and /OFF lists (the catalog gets a new version). */
function switchLayers(update: IncrementalUpdate, t: Targets, on: number[], off: number[]): void {
  const catalog = update.editDict(t.catalog);
  const props = cloneDict(t.reader.getDict(catalog, 'OCProperties')!);
  const ocgs = t.reader.getArray(props, 'OCGs')!.items as PdfRef[];
  const d = cloneDict(t.reader.getDict(props, 'D')!);
  d.set('ON', new PdfArray(on.map((i) => ocgs[i]!)));
  d.set('OFF', new PdfArray(off.map((i) => ocgs[i]!)));
  props.set('D', d);
  catalog.set('OCProperties', props);
}

export const VISUAL_CASES: readonly ShadowCase[] = [
  {
    name: 'hide: an opaque /Square annotation over the price',
    attack: 'hide',
    reason: /annot/i,
    wellFormed: true,
    where: 'signing-revision',
    build: (ctx) =>
      sign(ctx, (u, t) =>
        addAnnotation(u, t.page1, overPrice(u, t.page1, 'Square', undefined, { IC: new PdfArray([1, 1, 1]) })),
      ),
  },
  {
    name: "hide: the signer's widget enlarged over the page with an opaque appearance",
    attack: 'hide',
    reason: /widget|rect|annot/i,
    wellFormed: true,
    where: 'signing-revision',
    build: (ctx) =>
      sign(ctx, (u, t) => {
        const widget = u.editDict(t.widget);
        widget.set('Rect', new PdfArray([0, 0, 612, 792]));
        widget.set('AP', dict({ N: boxAppearance(u, 612, 792, 'Signed') }));
      }),
  },
  {
    name: 'hide: the optional content group of the contract switched off',
    attack: 'hide',
    reason: /OCProperties|catalog/i,
    wellFormed: true,
    where: 'signing-revision',
    build: (ctx) => sign(ctx, (u, t) => switchLayers(u, t, [], [0, 1])),
  },
  {
    name: 'replace: the form XObject /Fm0 redefined',
    attack: 'replace',
    reason: /xobject|stream|content/i,
    wellFormed: true,
    where: 'signing-revision',
    build: (ctx) =>
      sign(ctx, (u, t) => {
        const old = t.reader.getObject(t.fm0);
        if (!(old instanceof PdfStream)) throw new Error('shadow corpus: /Fm0 is not a stream');
        u.set(
          t.fm0,
          makeStream(cloneDict(old.dict), Buffer.from(`BT /F1 18 Tf 72 680 Td (${SHADOW_TEXT}) Tj ET`, 'latin1')),
        );
      }),
  },
  {
    name: 'replace: font /F1 redefined with /Differences (digits drawn as other digits)',
    attack: 'replace',
    reason: /font|encoding/i,
    wellFormed: true,
    where: 'signing-revision',
    build: (ctx) =>
      sign(ctx, (u, t) => {
        const encoding = dict({
          Type: name('Encoding'),
          BaseEncoding: name('WinAnsiEncoding'),
          Differences: new PdfArray([48, name('one'), name('one'), name('one')]),
        });
        u.set(
          t.f1,
          dict({ Type: name('Font'), Subtype: name('Type1'), BaseFont: name('Helvetica'), Encoding: u.add(encoding) }),
        );
      }),
  },
  {
    name: 'replace: font /F1 given a /ToUnicode that reads digits as other digits',
    attack: 'replace',
    reason: /font|unicode|stream/i,
    wellFormed: true,
    where: 'signing-revision',
    build: (ctx) =>
      sign(ctx, (u, t) => {
        const cmap =
          '/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /Shadow def 1 begincodespacerange <00> <FF> endcodespacerange 1 beginbfrange <30> <39> <0031> endbfrange endcmap CMapName currentdict /CMap defineresource pop end end';
        const font = copyOf(t, t.f1);
        font.set('ToUnicode', u.add(makeStream(new PdfDict(), Buffer.from(cmap, 'latin1'))));
        u.set(t.f1, font);
      }),
  },
  {
    name: 'replace: a /FreeText annotation printing a new price',
    attack: 'replace',
    reason: /annot|freetext/i,
    wellFormed: true,
    where: 'signing-revision',
    build: (ctx) =>
      sign(ctx, (u, t) =>
        addAnnotation(
          u,
          t.page1,
          overPrice(u, t.page1, 'FreeText', SHADOW_TEXT, {
            Contents: new PdfString(Buffer.from(SHADOW_TEXT), false),
            DA: new PdfString(Buffer.from('/Helv 14 Tf 0 g'), false),
          }),
        ),
      ),
  },
  {
    name: "hide-and-replace: page 1's content stream redefined (the issue's attack)",
    attack: 'hide-and-replace',
    reason: /content|stream|page/i,
    wellFormed: true,
    where: 'signing-revision',
    build: (ctx) => sign(ctx, (u, t) => u.set(t.content, makeStream(new PdfDict(), shadowContent()))),
  },
  {
    name: 'hide-and-replace: a content stream added to page 1 /Contents',
    attack: 'hide-and-replace',
    reason: /page|content/i,
    wellFormed: true,
    where: 'signing-revision',
    build: (ctx) =>
      sign(ctx, (u, t) => {
        const page = u.editDict(t.page1);
        page.set('Contents', new PdfArray([t.content, u.add(makeStream(new PdfDict(), shadowContent()))]));
      }),
  },
  {
    name: 'hide-and-replace: a new /Stamp annotation with the shadow text',
    attack: 'hide-and-replace',
    reason: /annot|stamp/i,
    wellFormed: true,
    where: 'signing-revision',
    build: (ctx) => sign(ctx, (u, t) => addAnnotation(u, t.page1, overPrice(u, t.page1, 'Stamp', SHADOW_TEXT))),
  },
  {
    name: 'hide-and-replace: an orphan widget (no field) drawing the shadow text',
    attack: 'hide-and-replace',
    reason: /widget|annot|field/i,
    wellFormed: true,
    where: 'signing-revision',
    build: (ctx) => sign(ctx, (u, t) => addAnnotation(u, t.page1, overPrice(u, t.page1, 'Widget', SHADOW_TEXT))),
  },
  {
    name: 'hide-and-replace: the optional content configuration swapped (hidden clause shown, contract hidden)',
    attack: 'hide-and-replace',
    reason: /OCProperties|catalog/i,
    wellFormed: true,
    where: 'signing-revision',
    build: (ctx) => sign(ctx, (u, t) => switchLayers(u, t, [1], [0])),
  },
  {
    name: 'hide-and-replace: a new optional content group added and the price drawn in it',
    attack: 'hide-and-replace',
    reason: /OCProperties|catalog|page|content/i,
    wellFormed: true,
    where: 'signing-revision',
    build: (ctx) =>
      sign(ctx, (u, t) => {
        const ocg = u.add(dict({ Type: name('OCG'), Name: new PdfString(Buffer.from('Shadow'), false) }));
        const catalog = u.editDict(t.catalog);
        const props = cloneDict(t.reader.getDict(catalog, 'OCProperties')!);
        props.set('OCGs', new PdfArray([...t.reader.getArray(props, 'OCGs')!.items, ocg]));
        catalog.set('OCProperties', props);
        const page = u.editDict(t.page1);
        const res = cloneDict(t.reader.getDict(page, 'Resources')!);
        const propsRes = cloneDict(t.reader.getDict(res, 'Properties')!);
        propsRes.set('ocS', ocg);
        res.set('Properties', propsRes);
        page.set('Resources', res);
        const drawn = Buffer.concat([Buffer.from('/OC /ocS BDC '), shadowContent(), Buffer.from(' EMC')]);
        page.set('Contents', new PdfArray([t.content, u.add(makeStream(new PdfDict(), drawn))]));
      }),
  },
];
