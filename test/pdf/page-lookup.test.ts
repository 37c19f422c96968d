import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { PdfReader, getPages, listSignatureFields, verifyPdf } from '../../pdf/index.js';
import { PdfDict, PdfRef } from '../../pdf/objects.js';
import { signPdf } from '../../pdf/sign/sign-pdf.js';
import { PageLookup } from '../../pdf/page-lookup.js';
import { isMoharError } from '../../common/errors.js';
import { makePdf, hostile } from '../support/pdf-fixtures.js';
import { manualLikePdf } from '../support/big-documents.js';
import { makeTestSigner } from '../support/openssl-signer.js';

const strip = (p: unknown) => JSON.parse(JSON.stringify(p)) as unknown;

describe('PageLookup: one page without the full walk (issue 30)', () => {
  test('every index gives the page getPages gives, inherited attributes included (6-ary tree, object streams)', () => {
    for (const pdf of [manualLikePdf(50), makePdf({ pages: 23, kidsPerNode: 3 }), makePdf({ pages: 4 })]) {
      const reader = PdfReader.open(pdf);
      const all = getPages(reader);
      const lookup = new PageLookup(PdfReader.open(pdf));
      all.forEach((page, i) => assert.deepEqual(strip(lookup.at(i)), strip(page), `page ${i + 1}`));
      assert.equal(lookup.at(all.length), undefined);
      assert.equal(lookup.at(-1), undefined);
      assert.equal(lookup.at(1.5), undefined);
    }
  });

  test('a lying root /Count: one page is still found through the nodes below; the full walk keeps its limits', () => {
    const lying = makePdf({ pages: 30, kidsPerNode: 2, countOverride: 1 });
    const all = getPages(PdfReader.open(lying));
    assert.deepEqual(strip(new PageLookup(PdfReader.open(lying)).at(29)), strip(all[29]));
    const limited = new PageLookup(PdfReader.open(lying, { maxPages: 10 }));
    assert.deepEqual(strip(limited.at(20)), strip(all[20]), 'reads one path, not 30 pages');
    assert.throws(
      () => limited.all(),
      (e) => isMoharError(e, 'pdf_too_complex'),
    );
  });

  test('kids whose /Count cannot be used: the full walk decides', () => {
    // Every /Count but the root's made unreadable, at the same length so that the xref stays right.
    const text = makePdf({ pages: 9, kidsPerNode: 2 }).toString('latin1');
    const root = /\/Count 9\b/.exec(text)!.index;
    const pdf = Buffer.from(
      text.replace(/\/Count (\d+)/g, (m, d: string, at: number) =>
        at === root ? m : `/Count ${'/'.repeat(d.length)}`,
      ),
      'latin1',
    );
    assert.equal(PdfReader.open(pdf).xref.reconstructed, false);
    const all = getPages(PdfReader.open(pdf));
    const lookup = new PageLookup(PdfReader.open(pdf));
    assert.deepEqual(strip(lookup.at(7)), strip(all[7]));
  });

  test('the root /Count above maxPages is refused at once; a /Kids cycle is refused as by getPages', () => {
    assert.throws(
      () => new PageLookup(PdfReader.open(makePdf({ pages: 5 }), { maxPages: 4 })),
      (e) => isMoharError(e, 'pdf_too_complex'),
    );
    assert.throws(
      () => new PageLookup(PdfReader.open(hostile.kidsCycle())).at(1),
      (e) => isMoharError(e, 'invalid_pdf') && /cycle/.test(e.message),
    );
  });
});

describe('signing a long document through PageLookup', () => {
  test('a visible field on page 37 of a 50-page tree in object streams: the widget is on that page, and verifies', async () => {
    const signer = makeTestSigner();
    try {
      const pdf = manualLikePdf(50);
      const page37 = getPages(PdfReader.open(pdf))[36]!;
      const field = { page: 37, rect: { x: 50, y: 50, width: 150, height: 40 } };
      const signed = await signPdf(pdf, { field, signingTime: new Date() }, signer.callback());
      const reader = PdfReader.open(signed.bytes);
      const [info] = listSignatureFields(reader, getPages(reader));
      assert.equal(info?.pageNumber, 37);
      const widget = reader.getObject(new PdfRef(info!.widgets[0]!.ref!.num, info!.widgets[0]!.ref!.gen));
      assert.ok(widget instanceof PdfDict);
      assert.equal((widget.get('P') as PdfRef).key, page37.ref!.key);
      const report = verifyPdf(signed.bytes);
      assert.equal(report.signatures.length, 1);
      assert.equal(report.signatures[0]!.digestValid, true);
      assert.equal(report.signatures[0]!.coversWholeDocument, true);
    } finally {
      signer.cleanup();
    }
  });
});
