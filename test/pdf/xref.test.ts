import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { PdfReader, getPages } from '../../pdf/index.js';
import { PdfDict, PdfRef, PdfStream } from '../../pdf/objects.js';
import { isMoharError } from '../../common/errors.js';
import {
  makePdf,
  buildPdf,
  appendUpdate,
  makeHybridPdf,
  withObjectStreams,
  linearize,
  qpdfPageCount,
  hostile,
} from '../support/pdf-fixtures.js';

const PAGE_90 = { num: 3, body: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Rotate 90 >>' };

describe('classic xref tables', () => {
  test('records startxref, /Size, section offset and kind', () => {
    const pdf = makePdf({ pages: 2 });
    const r = PdfReader.open(pdf);
    const startxref = Number(/startxref\s+(\d+)/.exec(pdf.toString('latin1'))![1]);
    assert.equal(r.xref.startxref, startxref);
    assert.equal(r.xref.sections.length, 1);
    assert.equal(r.xref.sections[0]!.offset, startxref);
    assert.equal(r.xrefKind, 'table');
    assert.equal(r.size, 5);
    assert.equal(r.xref.reconstructed, false);
    assert.equal(r.revisions.length, 1);
    assert.equal(r.revisions[0]!.end, pdf.length);
    // object offsets point at "N 0 obj"
    const off = r.objectOffset(2)!;
    assert.equal(pdf.toString('latin1', off, off + 7), '2 0 obj');
  });

  test('entries of free objects and missing objects resolve to null', () => {
    const r = PdfReader.open(makePdf());
    assert.equal(r.getObject(new PdfRef(0, 65535)), null);
    assert.equal(r.getObject(new PdfRef(99, 0)), null);
    assert.equal(r.getObject(new PdfRef(1, 5)), null, 'generation mismatch');
  });

  test('tolerates xref lines with non-standard spacing and a header after junk', () => {
    const pdf = makePdf({ pages: 2 }).toString('latin1').replace(/ \n/g, '\n');
    assert.equal(getPages(PdfReader.open(Buffer.from(pdf, 'latin1'))).length, 2);
    // 100 junk bytes before %PDF-: offsets in the file are counted from the header
    const junk = Buffer.concat([Buffer.alloc(100, 0x41), makePdf({ pages: 2 })]);
    const r = PdfReader.open(junk);
    assert.equal(r.headerOffset, 100);
    assert.equal(getPages(r).length, 2);
    assert.equal(r.xref.reconstructed, false);
  });
});

describe('line endings and trailing bytes', () => {
  test('CR-only line endings (old Mac writers)', () => {
    const pdf = Buffer.from(
      makePdf({ pages: 3, signatureFields: [{ name: 'S', rect: [1, 2, 3, 4] }] })
        .toString('latin1')
        .replace(/\n/g, '\r'),
      'latin1',
    );
    const r = PdfReader.open(pdf);
    assert.equal(r.xref.reconstructed, false);
    assert.equal(getPages(r).length, 3);
  });

  test('junk after the last %%EOF (padding, mail footers)', () => {
    const pdf = Buffer.concat([makePdf({ pages: 2 }), Buffer.alloc(3000), Buffer.from('\n-- \nsent from my phone\n')]);
    const r = PdfReader.open(pdf);
    assert.equal(r.xref.reconstructed, false);
    assert.equal(r.revisions.length, 1);
    assert.equal(getPages(r).length, 2);
  });

  test('startxref beyond the end of the file', () => {
    const pdf = makePdf({ pages: 2 })
      .toString('latin1')
      .replace(/startxref\s+\d+/, 'startxref\n99999999');
    assert.equal(getPages(PdfReader.open(Buffer.from(pdf, 'latin1'))).length, 2);
  });
});

describe('incremental updates', () => {
  test('later sections win, /Prev is followed, each revision is listed', () => {
    const base = makePdf({ pages: 2 });
    const updated = appendUpdate(base, [PAGE_90]);
    const r = PdfReader.open(updated);
    assert.equal(r.xref.sections.length, 2);
    assert.equal(r.revisions.length, 2);
    assert.equal(r.revisions[0]!.end, base.length);
    assert.equal(r.revisions[1]!.end, updated.length);
    assert.equal(r.xref.sections[1]!.offset, r.xref.sections[0]!.trailer.get('Prev'));
    const pages = getPages(r);
    assert.equal(pages[0]!.rotate, 90);
    assert.equal(pages[1]!.rotate, 0);
    assert.ok(r.objectOffset(3)! >= base.length, 'object 3 now lives in the update');
  });

  test('a free entry in a newer section deletes the object', () => {
    const base = makePdf({ pages: 1, catalogExtra: '/Extra 3 0 R' });
    let text = appendUpdate(base, [{ num: 9, body: '(filler)' }]).toString('latin1');
    // turn the update's subsection "9 1" into "3 1" marked free
    text = text.replace(/xref\n9 1\n(\d{10}) 00000 n/, 'xref\n3 1\n0000000000 00001 f');
    const r = PdfReader.open(Buffer.from(text, 'latin1'));
    assert.equal(r.xref.entries.get(3)?.type, 'free');
  });

  test('an appended update to an object-stream file', () => {
    const base = withObjectStreams(makePdf({ pages: 2 }));
    const updated = appendUpdate(base, [{ num: 50, body: '(new object)' }]);
    const r = PdfReader.open(updated);
    assert.equal(r.xref.sections.map((s) => s.kind).join(), 'table,stream');
    assert.equal(r.xrefKind, 'table');
    assert.equal(getPages(r).length, 2);
  });
});

describe('xref streams and object streams', () => {
  test('qpdf --object-streams=generate output is read through the xref stream', () => {
    const pdf = withObjectStreams(makePdf({ pages: 4, signatureFields: [{ name: 'S', rect: [1, 2, 3, 4] }] }));
    const r = PdfReader.open(pdf);
    assert.equal(r.xrefKind, 'stream');
    assert.equal(r.xref.reconstructed, false);
    assert.ok([...r.xref.entries.values()].some((e) => e.type === 'compressed'));
    assert.equal(getPages(r).length, 4);
    assert.ok(r.xref.sections[0]!.trailer.get('W'), 'the trailer of a stream section is the xref stream dictionary');
  });

  test('hybrid-reference file: pages only reachable through /XRefStm', () => {
    const pdf = makeHybridPdf(3);
    assert.equal(qpdfPageCount(pdf), 3);
    const r = PdfReader.open(pdf);
    assert.equal(r.xrefKind, 'hybrid');
    assert.equal(typeof r.xref.sections[0]!.xrefStm, 'number');
    assert.equal(r.xref.entries.get(10)?.type, 'compressed');
    assert.deepEqual(
      getPages(r).map((p) => p.rotate),
      [0, 90, 180],
    );
  });

  test('linearized file: first-page section plus main section, one revision', () => {
    const pdf = linearize(makePdf({ pages: 3 }));
    const r = PdfReader.open(pdf);
    assert.equal(r.xref.sections.length, 2);
    assert.equal(r.revisions.length, 1);
    assert.equal(r.isLinearized(), true);
    assert.equal(getPages(r).length, 3);
  });

  test('object streams are decoded once and their objects cached', () => {
    const r = PdfReader.open(withObjectStreams(makePdf({ pages: 3 })));
    const a = r.getObject(new PdfRef(2, 0));
    assert.ok(a instanceof PdfDict);
    assert.equal(r.getObject(new PdfRef(2, 0)), a);
  });
});

describe('broken cross-reference data is repaired by scanning', () => {
  test('startxref pointing nowhere', () => {
    const r = PdfReader.open(hostile.brokenStartxref());
    assert.equal(r.xref.reconstructed, true);
    assert.equal(getPages(r).length, 3);
  });

  test('startxref missing altogether, and no trailer either', () => {
    const pdf = makePdf({ pages: 2 }).toString('latin1');
    const noStartxref = pdf.replace(/startxref[\s\S]*$/, '');
    assert.equal(getPages(PdfReader.open(Buffer.from(noStartxref, 'latin1'))).length, 2);
    const noTrailer = pdf.replace(/xref[\s\S]*$/, '');
    const r = PdfReader.open(Buffer.from(noTrailer, 'latin1'));
    assert.equal(getPages(r).length, 2, 'the catalog is found by its /Type');
  });

  test('every xref offset wrong', () => {
    const r = PdfReader.open(hostile.wrongXrefOffsets());
    assert.equal(r.xref.reconstructed, true);
    assert.equal(getPages(r).length, 3);
  });

  test('repair keeps the newest copy of an object from an incremental update', () => {
    const updated = appendUpdate(makePdf({ pages: 2 }), [PAGE_90]).toString('latin1');
    const broken = Buffer.from(updated.replace(/startxref\s+\d+\s+%%EOF\s*$/, 'startxref\n1\n%%EOF\n'), 'latin1');
    const r = PdfReader.open(broken);
    assert.equal(r.xref.reconstructed, true);
    assert.equal(getPages(r)[0]!.rotate, 90);
  });

  test('repair of an object-stream file finds objects inside object streams', () => {
    const pdf = withObjectStreams(makePdf({ pages: 3 })).toString('latin1');
    const broken = Buffer.from(pdf.replace(/startxref\s+\d+/, 'startxref\n7'), 'latin1');
    const r = PdfReader.open(broken);
    assert.equal(r.xref.reconstructed, true);
    assert.equal(r.xrefKind, 'stream');
    assert.equal(getPages(r).length, 3);
  });

  test('truncated after the last object: recovered; cut in the page tree: invalid_pdf', () => {
    const pdf = makePdf({ pages: 3 });
    const xrefAt = pdf.lastIndexOf('xref');
    assert.equal(getPages(PdfReader.open(pdf.subarray(0, xrefAt))).length, 3);
    assert.throws(
      () => getPages(PdfReader.open(hostile.truncated(pdf, 0.5))),
      (e) => isMoharError(e, 'invalid_pdf'),
    );
    assert.throws(
      () => PdfReader.open(pdf.subarray(0, 20)),
      (e) => isMoharError(e, 'invalid_pdf'),
    );
  });

  test('/Prev cycle terminates and keeps the content', () => {
    const r = PdfReader.open(hostile.prevCycle());
    assert.equal(r.xref.sections.length, 2);
    assert.equal(getPages(r).length, 2);
  });

  test('a /Prev pointing at itself', () => {
    const pdf = makePdf({ pages: 1, trailerExtra: '/Prev 0000000000' }).toString('latin1');
    const startxref = /startxref\s+(\d+)/.exec(pdf)![1]!;
    const self = Buffer.from(pdf.replace('/Prev 0000000000', `/Prev ${startxref.padStart(10, '0')}`), 'latin1');
    const r = PdfReader.open(self);
    assert.equal(r.xref.sections.length, 1);
    assert.equal(r.xref.reconstructed, false);
  });
});

describe('streams whose /Length is indirect or wrong', () => {
  test('indirect /Length is resolved; a wrong one falls back to endstream', () => {
    const pdf = buildPdf(
      [
        { num: 1, body: '<< /Type /Catalog /Pages 2 0 R /A 4 0 R /B 6 0 R >>' },
        { num: 2, body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
        { num: 3, body: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] >>' },
        { num: 4, body: '<< /Length 5 0 R >>\nstream\nfive!\nendstream' },
        { num: 5, body: '5' },
        { num: 6, body: '<< /Length 500 >>\nstream\nwrong length\nendstream' },
      ],
      '/Root 1 0 R',
    );
    const r = PdfReader.open(pdf);
    const a = r.get(r.catalog, 'A') as PdfStream;
    const b = r.get(r.catalog, 'B') as PdfStream;
    assert.equal(Buffer.from(r.decodeStream(a)).toString(), 'five!');
    assert.equal(Buffer.from(r.decodeStream(b)).toString(), 'wrong length');
  });

  test('a /Length that refers to its own object does not loop', () => {
    const pdf = buildPdf(
      [
        { num: 1, body: '<< /Type /Catalog /Pages 2 0 R /A 4 0 R >>' },
        { num: 2, body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
        { num: 3, body: '<< /Type /Page /Parent 2 0 R >>' },
        { num: 4, body: '<< /Length 4 0 R >>\nstream\nself\nendstream' },
      ],
      '/Root 1 0 R',
    );
    const r = PdfReader.open(pdf);
    assert.equal(Buffer.from(r.decodeStream(r.get(r.catalog, 'A') as PdfStream)).toString(), 'self');
  });
});
