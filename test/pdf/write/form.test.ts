/**
 * pdf/write/form.ts: the arrays Mohar writes again (/Annots, /Fields) keep every earlier signature valid.
 * Issue 26 point 9: a page /Annots holding a bare `null` (pdf.js's annotation-text-without-popup.pdf has
 * one) was copied with the `null` into every signature's revision; pyHanko ("Array contains direct
 * objects") and Mohar's allow-list ("holds a direct object") then judged each earlier signature modified.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PdfReader, getPages, signPades } from '../../../pdf/index.js';
import { PdfArray, PdfDict, PdfRef } from '../../../pdf/objects.js';
import { buildPdf } from '../../support/pdf-fixtures.js';
import {
  complaints,
  makeTestKey,
  pyhankoComplaints,
  pyhankoSkip,
  type TestKey,
} from '../../support/earlier-signatures.js';

const NOTE = '<< /Type /Annot /Subtype /Text /Rect [100 100 120 120] /Contents (a note) >>';
const PAGE = '/Type /Page /Parent 2 0 R /MediaBox [0 0 612 792]';

/** /Annots [5 0 R null] in the page, /Fields [null] in a direct AcroForm. */
const directNulls = (): Buffer =>
  buildPdf(
    [
      { num: 1, body: '<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [null] >> >>' },
      { num: 2, body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
      { num: 3, body: `<< ${PAGE} /Annots [5 0 R null] >>` },
      { num: 5, body: NOTE },
    ],
    '/Root 1 0 R',
  );

/** The same with /Annots, the AcroForm and its /Fields as objects of their own. */
const indirectNulls = (): Buffer =>
  buildPdf(
    [
      { num: 1, body: '<< /Type /Catalog /Pages 2 0 R /AcroForm 7 0 R >>' },
      { num: 2, body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
      { num: 3, body: `<< ${PAGE} /Annots 6 0 R >>` },
      { num: 5, body: NOTE },
      { num: 6, body: '[5 0 R null]' },
      { num: 7, body: '<< /Fields 8 0 R >>' },
      { num: 8, body: '[null]' },
    ],
    '/Root 1 0 R',
  );

const FIXTURES = { 'a direct /Annots and /Fields': directNulls, 'an indirect /Annots and /Fields': indirectNulls };

/** Three signatures: invisible, visible on page 1, invisible; the bytes after each. */
async function signThrice(key: TestKey, pdf: Uint8Array): Promise<Buffer[]> {
  const out: Buffer[] = [];
  let bytes = pdf;
  for (const field of [
    { invisible: true } as const,
    { page: 1, rect: { x: 300, y: 100, width: 160, height: 50 } },
    { invisible: true } as const,
  ]) {
    const signed = await signPades(bytes, key.signer, { level: 'B-B', field, signingTime: new Date() });
    out.push(signed.bytes);
    bytes = signed.bytes;
  }
  return out;
}

function arrays(pdf: Uint8Array): { annots: PdfArray; fields: PdfArray } {
  const reader = PdfReader.open(pdf);
  const page = getPages(reader)[0]!;
  const annots = reader.resolve(page.dict.get('Annots'));
  const fields = reader.resolve(reader.getDict(reader.catalog, 'AcroForm')?.get('Fields') ?? null);
  assert.ok(annots instanceof PdfArray && fields instanceof PdfArray);
  return { annots, fields };
}

describe('signing a page whose /Annots holds null (issue 26 point 9)', () => {
  let key: TestKey;
  const signed = new Map<string, Buffer[]>();
  before(async () => {
    key = await makeTestKey();
    for (const [name, make] of Object.entries(FIXTURES)) signed.set(name, await signThrice(key, make()));
  });
  after(() => key?.pki.cleanup());

  for (const name of Object.keys(FIXTURES)) {
    test(`${name}: the first signature writes the arrays without the null, the note kept`, () => {
      const { annots, fields } = arrays(signed.get(name)![0]!);
      assert.ok(!annots.items.includes(null), `page /Annots: ${JSON.stringify(annots.items)}`);
      assert.ok(!fields.items.includes(null), `AcroForm /Fields: ${JSON.stringify(fields.items)}`);
      assert.ok(
        annots.items.some((i) => i instanceof PdfRef && i.num === 5),
        'the note stays on the page',
      );
      assert.equal(annots.items.length, 2, 'the note and the widget of the new signature');
      if (name.startsWith('an indirect')) {
        const page = getPages(PdfReader.open(signed.get(name)![0]!))[0]!;
        assert.ok(page.dict.get('Annots') instanceof PdfRef, 'the array stays an object of its own');
        assert.ok(page.dict instanceof PdfDict);
      }
    });

    if (name.startsWith('an indirect')) {
      test(`${name}: later signatures write the /Fields array again, not the AcroForm (no redefinition without change)`, () => {
        const [first, second, third] = signed.get(name)!.map((b) => PdfReader.open(b).objectOffset(7));
        assert.ok(first !== undefined && first > 0);
        assert.equal(second, first);
        assert.equal(third, first);
      });
    }

    test(`${name}: after each of three signatures every earlier one is valid for verifyPdf and pdfsig`, () => {
      signed.get(name)!.forEach((bytes, i) => assert.deepEqual(complaints(bytes, i + 1), [], `after ${i + 1}`));
    });

    test(`${name}: pyHanko finds no modification beyond form filling`, { skip: pyhankoSkip() }, () => {
      signed.get(name)!.forEach((bytes, i) => assert.deepEqual(pyhankoComplaints(bytes, i + 1), [], `after ${i + 1}`));
    });
  }
});
