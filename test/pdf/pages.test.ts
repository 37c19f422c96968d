import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { PdfReader, getPages, inspectPdf } from '../../pdf/index.js';
import { isMoharError } from '../../common/errors.js';
import { makePdf, buildPdf, pdfinfoPages, qpdfPageCount, hasTool, type PageSpec } from '../support/pdf-fixtures.js';

const pagesOf = (pdf: Buffer, limits?: Parameters<typeof PdfReader.open>[1]) => getPages(PdfReader.open(pdf, limits));

const SPECS: PageSpec[] = [
  {},
  { rotate: 90 },
  { mediaBox: [0, 0, 595, 842], rotate: 180 },
  { mediaBox: [-100, -50, 500, 700], cropBox: [0, 0, 400, 600], rotate: 270 },
  { mediaBox: [0, 0, 300, 300], cropBox: [-20, -20, 250, 400] }, // CropBox sticks out: clipped
  { mediaBox: [842, 595, 0, 0], rotate: -90 }, // reversed corners, negative rotation
  { rotate: 450 },
  { mediaBox: [10.5, 20.25, 400.75, 500.5], text: 'fractional' },
];

describe('page geometry', () => {
  test('boxes and rotation of each page', () => {
    const pages = pagesOf(makePdf({ pages: SPECS }));
    assert.equal(pages.length, SPECS.length);
    assert.deepEqual(
      pages.map((p) => p.rotate),
      [0, 90, 180, 270, 0, 270, 90, 0],
    );
    assert.deepEqual(pages[3]!.mediaBox, [-100, -50, 500, 700]);
    assert.deepEqual(pages[3]!.cropBox, [0, 0, 400, 600]);
    assert.deepEqual(pages[4]!.cropBox, [0, 0, 250, 300]);
    assert.deepEqual(pages[5]!.mediaBox, [0, 0, 842, 595]);
    assert.equal(pages[7]!.resources?.has('Font'), true);
    assert.deepEqual(
      pages.map((p) => p.index),
      [0, 1, 2, 3, 4, 5, 6, 7],
    );
    assert.ok(pages.every((p) => p.ref !== undefined));
  });

  test('matches poppler (pdfinfo -box) page by page', { skip: !hasTool('pdfinfo') && 'pdfinfo not installed' }, () => {
    const pdf = makePdf({ pages: SPECS });
    const ours = pagesOf(pdf);
    const theirs = pdfinfoPages(pdf, SPECS.length);
    ours.forEach((p, i) => {
      assert.deepEqual([...p.mediaBox], theirs[i]!.mediaBox, `MediaBox of page ${i + 1}`);
      assert.deepEqual([...p.cropBox], theirs[i]!.cropBox, `CropBox of page ${i + 1}`);
      assert.equal(p.rotate, theirs[i]!.rotate, `rotation of page ${i + 1}`);
    });
  });

  test('/Rotate that is not a multiple of 90 is ignored', () => {
    assert.equal(pagesOf(makePdf({ pages: [{ rotate: 45 }] }))[0]!.rotate, 0);
  });

  test('MediaBox, Rotate and Resources are inherited through a deep tree', () => {
    const pdf = makePdf({ pages: 40, kidsPerNode: 3, inheritedMediaBox: [0, 0, 595, 842], inheritedRotate: 90 });
    const pages = pagesOf(pdf);
    assert.equal(pages.length, 40);
    assert.equal(qpdfPageCount(pdf), 40);
    assert.ok(pages.every((p) => p.rotate === 90 && p.mediaBox[2] === 595 && p.mediaBox[3] === 842));
    // a page's own value beats the inherited one
    const own = pagesOf(
      makePdf({ pages: [{ rotate: 0 }, {}], inheritedRotate: 180, inheritedMediaBox: [0, 0, 100, 100] }),
    );
    assert.deepEqual(
      own.map((p) => p.rotate),
      [0, 180],
    );
  });

  test('a page without any MediaBox gets US Letter, as viewers assume', () => {
    const pdf = buildPdf(
      [
        { num: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' },
        {
          num: 2,
          body: '<< /Kids [3 0 R << /Type /Page /MediaBox [0 0 0 0] >>] /Count 2 /Resources << /Font << >> >> >>',
        },
        { num: 3, body: '<< /Parent 2 0 R >>' },
      ],
      '/Root 1 0 R',
    );
    const pages = pagesOf(pdf);
    assert.equal(pages.length, 2, 'nodes without /Type: /Kids decides; a page may be written inline');
    assert.deepEqual(pages[0]!.mediaBox, [0, 0, 612, 792]);
    assert.deepEqual(pages[1]!.mediaBox, [0, 0, 612, 792], 'an empty MediaBox is replaced too');
    assert.equal(pages[1]!.ref, undefined);
    assert.ok(pages[0]!.resources?.has('Font'));
  });

  test('visible size after rotation in inspectPdf', () => {
    const info = inspectPdf(makePdf({ pages: SPECS }));
    assert.deepEqual(
      info.pages.map((p) => [p.width, p.height]),
      [
        [612, 792],
        [792, 612],
        [595, 842],
        [600, 400],
        [250, 300],
        [595, 842],
        [792, 612],
        [390.25, 480.25],
      ],
    );
  });
});

describe('page-tree limits and damage', () => {
  test('root /Count above maxPages is refused before walking', () => {
    assert.throws(
      () => pagesOf(makePdf({ pages: 5 }), { maxPages: 4 }),
      (e) => isMoharError(e, 'pdf_too_complex') && /4 pages/.test(e.message),
    );
    assert.equal(pagesOf(makePdf({ pages: 4 }), { maxPages: 4 }).length, 4);
  });

  test('a lying /Count is caught by counting the pages actually found', () => {
    const deep = makePdf({ pages: 30, kidsPerNode: 2, countOverride: 1 });
    assert.throws(
      () => pagesOf(deep, { maxPages: 10 }),
      (e) => isMoharError(e, 'pdf_too_complex'),
    );
    assert.equal(pagesOf(deep).length, 30, 'the real number of pages is reported, not /Count');
  });

  test('a page tree deeper than maxDepth is refused', () => {
    assert.throws(
      () => pagesOf(makePdf({ pages: 64, kidsPerNode: 2 }), { maxDepth: 4 }),
      (e) => isMoharError(e, 'pdf_too_complex'),
    );
  });

  test('a /Kids entry that points at nothing is invalid_pdf', () => {
    const pdf = buildPdf(
      [
        { num: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' },
        { num: 2, body: '<< /Type /Pages /Kids [3 0 R 9 0 R] /Count 2 >>' },
        { num: 3, body: '<< /Type /Page /Parent 2 0 R >>' },
      ],
      '/Root 1 0 R',
    );
    assert.throws(
      () => pagesOf(pdf),
      (e) => isMoharError(e, 'invalid_pdf'),
    );
  });

  test('an empty page tree is invalid_pdf', () => {
    assert.throws(
      () => pagesOf(makePdf({ pages: 0 })),
      (e) => isMoharError(e, 'invalid_pdf'),
    );
  });
});
