/**
 * The allow-list difference analysis (pdf/verify/diff*.ts) and judgeAppendedRevision: benign revisions made
 * by our own writers (form fill, signPades, certification, DSS, document timestamp) are recognised for what
 * they are; everything else is `other` (or `annotations`) with a reason naming it, and refused.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { softwareSigner } from '../../../pdf/cms/index.js';
import { PdfReader } from '../../../pdf/document.js';
import { PdfArray, PdfDict, PdfName, PdfRef, PdfString } from '../../../pdf/objects.js';
import { getPages } from '../../../pdf/pages.js';
import { fillForm } from '../../../pdf/prepare/fill-form.js';
import { prepareForm } from '../../../pdf/prepare/prepare-form.js';
import { appendDss } from '../../../pdf/sign/dss.js';
import { signPades } from '../../../pdf/sign/pades.js';
import type { SignatureProvider } from '../../../pdf/ports.js';
import { timestampPdf } from '../../../pdf/sign/sign-pdf.js';
import {
  judgeAppendedRevision,
  verifyPdf,
  type ChangedObject,
  type RevisionPolicy,
} from '../../../pdf/verify/index.js';
import { revisionFacts } from '../../../pdf/verify/diff-facts.js';
import { IncrementalUpdate } from '../../../pdf/write/incremental.js';
import { dict, makeStream, name } from '../../../pdf/write/serialize.js';
import { textString } from '../../../pdf/write/text.js';
import { makePdf } from '../../support/pdf-fixtures.js';
import { createTestPki, type TestPki } from '../../support/served-pki.js';

const at = new Date('2026-11-20T10:00:00Z');
/** What any act could be allowed at most: so a refusal below is the allow-list's, not a narrow policy's. */
const GENEROUS: RevisionPolicy = { signingField: 'sigA', fillableFields: ['pan'], allowLtv: true };

/** Two recipients' fields: pan + sigA (r1), city + sigB (r2). */
function prepared(): Buffer {
  return prepareForm(makePdf({ pages: [{ text: 'Pay 1000 rupees' }, {}] }), [
    { type: 8, page: 1, rect: { x: 50, y: 200, width: 200, height: 20 }, recipientId: 'r1', id: 'pan', name: 'pan' },
    { type: 1, page: 1, rect: { x: 50, y: 300, width: 200, height: 60 }, recipientId: 'r1', id: 'sigA', name: 'sigA' },
    { type: 8, page: 2, rect: { x: 50, y: 200, width: 200, height: 20 }, recipientId: 'r2', id: 'city', name: 'city' },
    { type: 1, page: 2, rect: { x: 50, y: 300, width: 200, height: 60 }, recipientId: 'r2', id: 'sigB', name: 'sigB' },
  ]).bytes;
}

interface Targets {
  readonly catalog: PdfRef;
  readonly page1: PdfRef;
  readonly content: PdfRef;
  readonly acroForm: PdfRef;
  readonly field: (name: string) => PdfRef;
}

function targets(reader: PdfReader): Targets {
  const facts = revisionFacts(reader);
  const page = getPages(reader)[0]!;
  const ref = (v: unknown): PdfRef => {
    assert.ok(v instanceof PdfRef);
    return v;
  };
  return {
    catalog: ref(reader.trailer.get('Root')),
    page1: ref(page.ref),
    content: ref(page.dict.get('Contents')),
    acroForm: ref(reader.catalog.get('AcroForm')),
    field: (n) => new PdfRef([...facts.fields].find(([, f]) => f.name === n && f.field)![0], 0),
  };
}

/** One hand-made revision over `bytes`. */
function revise(bytes: Uint8Array, change: (u: IncrementalUpdate, t: Targets) => void): Buffer {
  const reader = PdfReader.open(bytes);
  const update = new IncrementalUpdate(reader);
  change(update, targets(reader));
  return update.write().bytes;
}

const stream = (text: string, extra: Record<string, PdfName | PdfArray | PdfDict | number> = {}) =>
  makeStream(dict(extra), Buffer.from(text, 'latin1'));
const reasons = (objects: readonly ChangedObject[]): string => objects.map((o) => `${o.class}: ${o.reason}`).join('\n');

function refused(
  prior: Uint8Array,
  next: Uint8Array,
  says: RegExp,
  policy: RevisionPolicy = GENEROUS,
): ChangedObject[] {
  const judgement = judgeAppendedRevision(prior, next, policy);
  assert.equal(judgement.accepted, false, reasons(judgement.objects));
  assert.match(judgement.problem ?? '', /./);
  assert.ok(
    judgement.offending.some((o) => says.test(o.reason)),
    `no offending reason matches ${says}:\n${reasons(judgement.offending)}`,
  );
  return [...judgement.offending];
}

function accepted(prior: Uint8Array, next: Uint8Array, policy: RevisionPolicy): ChangedObject[] {
  const judgement = judgeAppendedRevision(prior, next, policy);
  assert.equal(judgement.accepted, true, `${judgement.problem}\n${reasons(judgement.objects)}`);
  assert.deepEqual(judgement.offending, []);
  return [...judgement.objects];
}

describe('allow-list difference analysis', () => {
  let pki: TestPki;
  let signer: SignatureProvider;
  let base: Buffer;
  let signedA: Buffer;

  before(async () => {
    pki = await createTestPki();
    signer = await softwareSigner({
      keyPem: pki.rsaSigner.keyPem,
      certificate: pki.rsaSigner.der,
      chain: [pki.intermediate.der, pki.root.der],
    });
    base = prepared();
    signedA = (await signPades(base, signer, { level: 'B-B', field: { name: 'sigA' }, signingTime: at })).bytes;
  });
  after(async () => {
    await pki?.close();
  });

  describe('benign revisions of our own writers', () => {
    test('a real form fill is form_filling of that field only', () => {
      const filled = fillForm(base, { pan: 'ABCDE1234F' });
      const objects = accepted(base, filled, { fillableFields: ['pan'] });
      assert.ok(
        objects.some((o) => o.class === 'form_filling' && o.field === 'pan'),
        reasons(objects),
      );
      assert.ok(
        objects.every((o) => o.class === 'structure' || (o.class === 'form_filling' && o.field === 'pan')),
        reasons(objects),
      );
      const other = refused(base, filled, /field "pan"/, { fillableFields: ['city'] });
      assert.ok(other.every((o) => o.field === 'pan'));
    });

    test('a radio group, a choice and a checkbox filled: form_filling only (the chosen radio kid /AS, no unchanged kid rewritten)', () => {
      const form = prepareForm(makePdf(), [
        {
          type: 13,
          page: 1,
          rect: { x: 50, y: 50, width: 150, height: 22 },
          recipientId: 'r1',
          id: 'pets',
          name: 'pets',
          options: ['Yes', 'No', 'Maybe'],
        },
        {
          type: 12,
          page: 1,
          rect: { x: 50, y: 100, width: 150, height: 22 },
          recipientId: 'r1',
          id: 'pay',
          name: 'pay',
          options: ['Monthly', 'Quarterly'],
        },
        { type: 9, page: 1, rect: { x: 50, y: 150, width: 18, height: 18 }, recipientId: 'r1', id: 'ok', name: 'ok' },
      ]).bytes;
      const filled = fillForm(form, { pets: 'No', pay: 'Quarterly', ok: true });
      const objects = accepted(form, filled, { fillableFields: ['pets', 'pay', 'ok'] });
      assert.ok(
        objects.some((o) => o.class === 'form_filling' && o.field === 'pets' && /widget \/AS/.test(o.reason)),
        reasons(objects),
      );
      refused(form, filled, /field "pets"/, { fillableFields: ['pay', 'ok'] });
    });

    test('a real signature by signPades is signing of that field; another field is refused', () => {
      const objects = accepted(base, signedA, { signingField: 'sigA' });
      assert.ok(
        objects.some((o) => o.class === 'signing' && /signature field "sigA" signed/.test(o.reason)),
        reasons(objects),
      );
      assert.ok(
        objects.every((o) => o.class === 'structure' || (o.class === 'signing' && o.field === 'sigA')),
        reasons(objects),
      );
      refused(base, signedA, /sigA/, { signingField: 'sigB' });
      refused(base, signedA, /sigA/, { fillableFields: ['pan'] });
    });

    test('fill and sign in one revision (the electronic act) is form_filling + signing', async () => {
      const both = (
        await signPades(base, signer, {
          level: 'B-B',
          field: { name: 'sigA' },
          formValues: { pan: 'ABCDE1234F' },
          signingTime: at,
        })
      ).bytes;
      accepted(base, both, { signingField: 'sigA', fillableFields: ['pan'] });
      refused(base, both, /field "pan"/, { signingField: 'sigA' });
    });

    test('a new invisible signature field, and a certification signature (DocMDP P=2)', async () => {
      const invisible = await signPades(base, signer, { level: 'B-B', field: { invisible: true }, signingTime: at });
      accepted(base, invisible.bytes, { signingField: invisible.fieldName });
      const certified = (
        await signPades(base, signer, {
          level: 'B-B',
          field: { name: 'sigA' },
          certify: { permission: 2 },
          signingTime: at,
        })
      ).bytes;
      const objects = accepted(base, certified, { signingField: 'sigA' });
      assert.ok(
        objects.some((o) => /\/Perms \/DocMDP/.test(o.reason)),
        reasons(objects),
      );
    });

    test('DSS and a document timestamp are ltv, each revision on its own', async () => {
      const withDss = appendDss(signedA, {
        certs: [pki.rsaSigner.der, pki.intermediate.der],
        vri: [{ field: 'sigA', certs: [pki.rsaSigner.der] }],
      }).bytes;
      const objects = accepted(signedA, withDss, { allowLtv: true });
      assert.ok(
        objects.some((o) => o.class === 'ltv' && /catalog \/DSS/.test(o.reason)),
        reasons(objects),
      );
      refused(signedA, withDss, /DSS/, { signingField: 'sigA', fillableFields: ['pan'] });
      // The judge does not check the token's cryptography: any DER stands in for the TSA's answer.
      const stamped = (await timestampPdf(withDss, async () => Buffer.from('3003020100', 'hex'))).bytes;
      const ts = accepted(withDss, stamped, { allowLtv: true });
      assert.ok(
        ts.some((o) => /document timestamp of field/.test(o.reason)),
        reasons(ts),
      );
    });
  });

  describe('everything else is other, with a reason', () => {
    test('page content: a new content stream on page 1 in the same revision as a signature', () => {
      const attack = revise(base, (u, t) => {
        const added = u.add(stream('BT /Helv 24 Tf 72 700 Td (PRICE CHANGED: 1 RUPEE) Tj ET'));
        u.editDict(t.page1).set('Contents', new PdfArray([t.content, added]));
      });
      refused(base, attack, /page 1 \/Contents changed/);
      refused(base, attack, /new content stream on page 1/);
    });

    test('an existing content stream, XObject, font or encoding rewritten', () => {
      refused(
        base,
        revise(base, (u, t) => u.set(t.content, stream('BT /F1 12 Tf 72 700 Td (forged) Tj ET'))),
        /page 1 content stream \(object \d+\) rewritten/,
      );
      const reader = PdfReader.open(base);
      const widget = reader.resolve(targets(reader).field('sigA')) as PdfDict;
      const ap = reader.getDict(widget, 'AP')!.get('N') as PdfRef;
      refused(
        base,
        revise(base, (u) =>
          u.set(
            ap,
            stream('0 0 1 rg 0 0 200 60 re f', {
              Type: name('XObject'),
              Subtype: name('Form'),
              BBox: new PdfArray([0, 0, 200, 60]),
            }),
          ),
        ),
        // The unsigned signature field's own appearance stream: named as such (diff-appearance.ts).
        /signature field "sigA" appearance stream object \d+ rewritten \(the field is not signed in this revision\)/,
      );
      const helv = reader
        .getDict(reader.getDict(reader.getDict(reader.catalog, 'AcroForm'), 'DR'), 'Font')!
        .get('Helv') as PdfRef;
      refused(
        base,
        revise(base, (u) =>
          u.set(helv, dict({ Type: name('Font'), Subtype: name('Type1'), BaseFont: name('Courier') })),
        ),
        /existing \/Font \/Type1 object \d+ rewritten/,
      );
      let encoding: PdfRef | undefined;
      const withEncoding = revise(base, (u) => {
        encoding = u.add(dict({ Type: name('Encoding'), Differences: new PdfArray([65, name('B')]) }));
      });
      refused(
        withEncoding,
        revise(withEncoding, (u) =>
          u.set(encoding!, dict({ Type: name('Encoding'), Differences: new PdfArray([65, name('Z')]) })),
        ),
        /existing \/Encoding object \d+ rewritten/,
      );
    });

    test('a new page', () => {
      const next = revise(base, (u) => {
        const reader = u.reader;
        const pagesRef = reader.catalog.get('Pages') as PdfRef;
        const page = u.add(dict({ Type: name('Page'), Parent: pagesRef, MediaBox: new PdfArray([0, 0, 612, 792]) }));
        const pages = u.editDict(pagesRef);
        (pages.get('Kids') as PdfArray).items.push(page);
        pages.set('Count', (reader.getNumber(pages, 'Count') ?? 0) + 1);
      });
      refused(base, next, /new page 3/);
      refused(base, next, /existing \/Pages object \d+ rewritten/);
    });

    test('new annotations: markup is annotations, a link or an orphan widget is other', () => {
      const annotate = (annot: PdfDict) =>
        revise(base, (u, t) => {
          const ref = u.add(annot);
          const page = u.editDict(t.page1);
          const annots = u.resolve(page.get('Annots'));
          page.set('Annots', new PdfArray([...(annots instanceof PdfArray ? annots.items : []), ref]));
        });
      const rect = new PdfArray([50, 600, 400, 650]);
      const freeText = refused(
        base,
        annotate(
          dict({
            Type: name('Annot'),
            Subtype: name('FreeText'),
            Rect: rect,
            Contents: textString('1 RUPEE'),
            DA: textString('/Helv 24 Tf 0 g'),
          }),
        ),
        /new annotation \/FreeText on page 1 \(not a widget of a form field\)/,
      );
      assert.ok(
        freeText.some((o) => o.class === 'annotations'),
        reasons(freeText),
      );
      refused(
        base,
        annotate(
          dict({
            Type: name('Annot'),
            Subtype: name('Link'),
            Rect: rect,
            A: dict({ S: name('URI'), URI: textString('https://evil.example') }),
          }),
        ),
        /new annotation \/Link on page 1 not a widget of a field/,
      );
      refused(
        base,
        annotate(
          dict({ Type: name('Annot'), Subtype: name('Widget'), Rect: rect, FT: name('Tx'), V: textString('1 RUPEE') }),
        ),
        /new annotation \/Widget on page 1 not a widget of a field/,
      );
    });

    test('catalog /OpenAction, /AA, /Names (JavaScript); AcroForm /XFA and /NeedAppearances', () => {
      const js = dict({ S: name('JavaScript'), JS: textString('app.alert(1)') });
      refused(
        base,
        revise(base, (u, t) => u.editDict(t.catalog).set('OpenAction', js)),
        /catalog \/OpenAction added/,
      );
      refused(
        base,
        revise(base, (u, t) => u.editDict(t.catalog).set('AA', dict({ WC: js }))),
        /catalog \/AA added/,
      );
      refused(
        base,
        revise(base, (u, t) =>
          u
            .editDict(t.catalog)
            .set('Names', dict({ JavaScript: dict({ Names: new PdfArray([textString('a'), js]) }) })),
        ),
        /catalog \/Names added/,
      );
      refused(
        base,
        revise(base, (u, t) => u.editDict(t.acroForm).set('XFA', u.add(stream('<xdp:xdp/>')))),
        /AcroForm \/XFA added/,
      );
      refused(
        base,
        revise(base, (u, t) => u.editDict(t.acroForm).set('NeedAppearances', true)),
        /AcroForm \/NeedAppearances added/,
      );
    });

    test('an existing field moved or made editable; a signature replaced', () => {
      refused(
        base,
        revise(base, (u, t) => u.editDict(t.field('pan')).set('Rect', new PdfArray([0, 0, 1, 1]))),
        /field "pan": \/Rect changed/,
      );
      refused(
        signedA,
        revise(signedA, (u, t) =>
          u
            .editDict(t.field('sigA'))
            .set('V', u.add(dict({ Type: name('Sig'), Contents: new PdfString(new Uint8Array(8), true) }))),
        ),
        /its signature \(\/V\) was replaced/,
      );
    });

    test('a later signature that carries a DocMDP transform (a second certification)', () => {
      const reference = new PdfArray([
        dict({
          Type: name('SigRef'),
          TransformMethod: name('DocMDP'),
          TransformParams: dict({ Type: name('TransformParams'), P: 1, V: name('1.2') }),
        }),
      ]);
      const next = revise(signedA, (u, t) =>
        u.editDict(t.field('sigB')).set('V', u.add(dict({ Type: name('Sig'), Reference: reference }))),
      );
      refused(signedA, next, /carries a \/Reference \(a \/DocMDP transform\) but is not the certification/, {
        signingField: 'sigB',
      });
    });

    test('an object redefined without change', () => {
      refused(
        base,
        revise(base, (u, t) => u.editDict(t.catalog)),
        /redefined without change/,
      );
    });

    test('freed and reused object numbers', () => {
      const num = targets(PdfReader.open(base)).content.num;
      const freed = appendRaw(base, [], [num]);
      refused(base, freed, new RegExp(`object ${num} freed`));
      const reused = appendRaw(freed, [{ num, gen: 1, body: '<< /Length 0 >>\nstream\n\nendstream' }], []);
      refused(freed, reused, new RegExp(`object number ${num} reused`));
    });

    test('a reference an unchanged object already made, filled in later (shown by an allowed appearance)', () => {
      const size = PdfReader.open(base).size;
      // The trap, laid before signing: page 1 uses object `size`, which does not exist yet (draws nothing).
      const trap = revise(base, (u, t) =>
        u.editDict(t.page1).set('Resources', dict({ XObject: dict({ Shadow: new PdfRef(size, 0) }) })),
      );
      const sprung = revise(trap, (u, t) => {
        const form = u.add(
          stream('BT /Helv 24 Tf 72 700 Td (1 RUPEE) Tj ET', {
            Type: name('XObject'),
            Subtype: name('Form'),
            BBox: new PdfArray([0, 0, 612, 792]),
          }),
        );
        assert.equal(form.num, size, 'the trap names the first number the next revision allocates');
        const pan = u.editDict(t.field('pan'));
        pan.set('V', textString('X'));
        pan.set('AP', dict({ N: form }));
      });
      refused(trap, sprung, new RegExp(`new object ${size} fills a reference that unchanged object \\d+ already made`));
    });

    test('the shape: not a prefix, two revisions, a /Prev that skips', () => {
      const filled = fillForm(base, { pan: 'A' });
      const tampered = Buffer.from(filled);
      tampered[100] = tampered[100]! ^ 1;
      assert.match(
        judgeAppendedRevision(base, tampered, GENEROUS).problem ?? '',
        /does not extend the earlier bytes exactly/,
      );
      assert.match(
        judgeAppendedRevision(base, fillForm(filled, { pan: 'B' }), GENEROUS).problem ?? '',
        /exactly one revision; it appends 2/,
      );
      const text = filled.toString('latin1');
      const prev = /\/Prev (\d+)/g;
      let last: RegExpExecArray | null = null;
      for (let m = prev.exec(text); m; m = prev.exec(text)) last = m;
      // Chain the new section to the revision BEFORE the prior one: the prior revision's objects would vanish.
      const older = String(PdfReader.open(base).trailer.get('Prev'));
      assert.ok(older.length <= last![1]!.length);
      const skipping = Buffer.from(
        text.slice(0, last!.index) +
          `/Prev ${older}` +
          ' '.repeat(last![1]!.length - older.length) +
          text.slice(last!.index + last![0].length),
        'latin1',
      );
      assert.match(judgeAppendedRevision(base, skipping, GENEROUS).problem ?? '', /\/Prev/);
    });
  });

  describe('verifyPdf: changes after each signature and DocMDP', () => {
    test('page content after a signature is other with its reason; a FreeText is annotations', () => {
      const edited = revise(signedA, (u, t) => u.set(t.content, stream('BT /F1 12 Tf 72 700 Td (forged) Tj ET')));
      const report = verifyPdf(edited).signatures[0]!;
      assert.equal(report.changesAfter, 'other');
      assert.ok(report.changedObjects.some((o) => /page 1 content stream/.test(o.reason)));
      assert.equal(report.valid, false);
      const annotated = revise(signedA, (u, t) => {
        const ref = u.add(
          dict({
            Type: name('Annot'),
            Subtype: name('Text'),
            Rect: new PdfArray([0, 0, 20, 20]),
            Contents: textString('note'),
          }),
        );
        const page = u.editDict(t.page1);
        page.set('Annots', new PdfArray([...(u.resolve(page.get('Annots')) as PdfArray).items, ref]));
      });
      assert.equal(verifyPdf(annotated).signatures[0]!.changesAfter, 'annotations');
    });

    test('certified P=2: fill and sign later are fine; an annotation or page content breaks the certification', async () => {
      const certified = (
        await signPades(base, signer, {
          level: 'B-B',
          field: { name: 'sigA' },
          certify: { permission: 2 },
          signingTime: at,
        })
      ).bytes;
      const later = (
        await signPades(certified, signer, {
          level: 'B-B',
          field: { name: 'sigB' },
          formValues: { city: 'Pune' },
          signingTime: at,
        })
      ).bytes;
      const report = verifyPdf(later);
      assert.equal(report.valid, true, JSON.stringify(report.signatures.map((s) => s.problems)));
      assert.equal(report.signatures[0]!.docMdp, 2);
      assert.equal(report.signatures[0]!.changesAfter, 'form_filling');
      const annotated = revise(later, (u, t) => {
        const ref = u.add(dict({ Type: name('Annot'), Subtype: name('Square'), Rect: new PdfArray([0, 0, 20, 20]) }));
        const page = u.editDict(t.page1);
        page.set('Annots', new PdfArray([...(u.resolve(page.get('Annots')) as PdfArray).items, ref]));
      });
      const broken = verifyPdf(annotated).signatures[0]!;
      assert.equal(broken.valid, false);
      assert.match(
        broken.problems.join(' '),
        /DocMDP P=2\), yet it was changed beyond that: .*new annotation \/Square/,
      );
      const p3 = (
        await signPades(base, signer, {
          level: 'B-B',
          field: { name: 'sigA' },
          certify: { permission: 3 },
          signingTime: at,
        })
      ).bytes;
      const p3Annotated = revise(p3, (u, t) => {
        const ref = u.add(dict({ Type: name('Annot'), Subtype: name('Square'), Rect: new PdfArray([0, 0, 20, 20]) }));
        const page = u.editDict(t.page1);
        page.set('Annots', new PdfArray([...(u.resolve(page.get('Annots')) as PdfArray).items, ref]));
      });
      assert.deepEqual(verifyPdf(p3Annotated).signatures[0]!.problems, [], 'P=3 allows annotations');
      const p1 = (
        await signPades(base, signer, {
          level: 'B-B',
          field: { name: 'sigA' },
          certify: { permission: 1 },
          signingTime: at,
        })
      ).bytes;
      const p1Filled = revise(p1, (u, t) => u.editDict(t.field('pan')).set('V', textString('X')));
      assert.match(verifyPdf(p1Filled).signatures[0]!.problems.join(' '), /DocMDP P=1/);
    });
  });
});

/** An incremental section written by hand: objects, and free entries (gen 1) for `free`. */
function appendRaw(pdf: Buffer, objects: { num: number; gen: number; body: string }[], free: number[]): Buffer {
  const text = pdf.toString('latin1');
  const prev = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(text)![1]);
  const size = PdfReader.open(pdf).size;
  const root = PdfReader.open(pdf).trailer.get('Root') as PdfRef;
  let out = text.endsWith('\n') ? text : `${text}\n`;
  const rows = new Map<number, string>();
  for (const o of objects) {
    rows.set(o.num, `${String(out.length).padStart(10, '0')} ${String(o.gen).padStart(5, '0')} n \n`);
    out += `${o.num} ${o.gen} obj\n${o.body}\nendobj\n`;
  }
  for (const num of free) rows.set(num, `0000000000 00001 f \n`);
  const xref = out.length;
  out += 'xref\n';
  for (const [num, row] of [...rows].sort((a, b) => a[0] - b[0])) out += `${num} 1\n${row}`;
  out += `trailer\n<< /Size ${size} /Prev ${prev} /Root ${root.num} ${root.gen} R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}
