import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { inspectPdf } from '../../pdf/index.js';
import { DEFAULT_PDF_LIMITS } from '../../pdf/limits.js';
import { isMoharError } from '../../common/errors.js';
import {
  makePdf,
  makeHybridPdf,
  appendUpdate,
  withObjectStreams,
  linearize,
  samples,
} from '../support/pdf-fixtures.js';

describe('inspectPdf', () => {
  test('the whole answer for a simple file', () => {
    const info = inspectPdf(
      makePdf({
        pages: [{}, { rotate: 90, cropBox: [0, 0, 300, 400] }],
        signatureFields: [{ name: 'Sig', page: 2, rect: [10, 10, 110, 60] }],
      }),
    );
    assert.deepEqual(info, {
      pdfVersion: '1.7',
      pageCount: 2,
      pages: [
        { mediaBox: [0, 0, 612, 792], cropBox: [0, 0, 612, 792], rotate: 0, width: 612, height: 792 },
        { mediaBox: [0, 0, 612, 792], cropBox: [0, 0, 300, 400], rotate: 90, width: 400, height: 300 },
      ],
      signatureFields: [
        {
          name: 'Sig',
          signed: false,
          pageNumber: 2,
          rect: { x: 10, y: 10, width: 50, height: 100 },
          widgets: [
            {
              pageNumber: 2,
              rect: { x: 10, y: 10, width: 50, height: 100 },
              userRect: [10, 10, 110, 60],
              ref: { num: 5, gen: 0 },
            },
          ],
          ref: { num: 5, gen: 0 },
        },
      ],
      docMdpPermission: null,
      xrefKind: 'table',
      revisions: 1,
      linearized: false,
      repaired: false,
    });
  });

  test('version: header, or a later catalog /Version', () => {
    assert.equal(inspectPdf(makePdf({ version: '1.4' })).pdfVersion, '1.4');
    assert.equal(inspectPdf(makePdf({ version: '1.4', catalogExtra: '/Version /1.7' })).pdfVersion, '1.7');
    assert.equal(inspectPdf(makePdf({ version: '1.7', catalogExtra: '/Version /1.3' })).pdfVersion, '1.7');
  });

  test('xref kind of the last section', () => {
    assert.equal(inspectPdf(makePdf()).xrefKind, 'table');
    assert.equal(inspectPdf(withObjectStreams(makePdf())).xrefKind, 'stream');
    assert.equal(inspectPdf(makeHybridPdf()).xrefKind, 'hybrid');
    assert.equal(inspectPdf(appendUpdate(withObjectStreams(makePdf()), [{ num: 40, body: '1' }])).xrefKind, 'table');
  });

  test('revisions and linearization', () => {
    const base = makePdf({ pages: 2 });
    const twice = appendUpdate(appendUpdate(base, [{ num: 40, body: '1' }]), [{ num: 41, body: '2' }]);
    assert.equal(inspectPdf(twice).revisions, 3);
    const lin = linearize(base);
    assert.deepEqual([inspectPdf(lin).linearized, inspectPdf(lin).revisions], [true, 1]);
    const linUpdated = appendUpdate(lin, [{ num: 40, body: '1' }]);
    assert.deepEqual(
      [inspectPdf(linUpdated).linearized, inspectPdf(linUpdated).revisions],
      [false, 2],
      'an update ends linearization',
    );
  });

  test('accepts a Uint8Array view into a larger buffer', () => {
    const pdf = makePdf({ pages: 3 });
    const big = new Uint8Array(pdf.length + 200);
    big.set(pdf, 100);
    assert.equal(inspectPdf(big.subarray(100, 100 + pdf.length)).pageCount, 3);
  });

  test('limits: defaults, partial overrides, nonsense values', () => {
    assert.deepEqual(DEFAULT_PDF_LIMITS, {
      maxDepth: 200,
      maxInflateBytes: 64 * 1024 * 1024,
      maxTotalDecodedBytes: 256 * 1024 * 1024,
      maxPages: 10_000,
      maxObjects: 2_000_000,
    });
    assert.throws(
      () => inspectPdf(makePdf({ pages: 3 }), { maxPages: 2 }),
      (e) => isMoharError(e, 'pdf_too_complex'),
    );
    assert.equal(inspectPdf(makePdf({ pages: 3 }), { maxPages: 3, maxDepth: undefined }).pageCount, 3);
    assert.throws(() => inspectPdf(makePdf(), { maxPages: -1 }), TypeError);
  });
});

describe('fixture samples for other test suites', () => {
  test('each sample is what its name says', () => {
    const empty = inspectPdf(samples.emptySignatureField());
    assert.deepEqual(
      empty.signatureFields.map((f) => [f.name, f.signed, f.pageNumber, f.rect]),
      [['Signature1', false, 1, { x: 72, y: 670, width: 200, height: 50 }]],
    );
    assert.deepEqual(
      inspectPdf(samples.signedField()).signatureFields.map((f) => [f.name, f.signed]),
      [
        ['Signer1', true],
        ['Signer2', false],
      ],
    );
    assert.equal(inspectPdf(samples.certified()).docMdpPermission, 1);
    assert.equal(inspectPdf(samples.certified(3)).docMdpPermission, 3);
    assert.equal(inspectPdf(samples.incrementallyUpdated()).revisions, 2);
    assert.deepEqual(
      inspectPdf(samples.mixedGeometry()).pages.map((p) => [p.width, p.height]),
      [
        [612, 792],
        [842, 595],
        [800, 553],
        [792, 612],
      ],
    );
    assert.equal(inspectPdf(samples.objectStreams()).xrefKind, 'stream');
    assert.equal(inspectPdf(samples.linearized()).linearized, true);
    assert.equal(inspectPdf(samples.hybrid()).xrefKind, 'hybrid');
    assert.throws(
      () => inspectPdf(samples.encrypted()),
      (e) => isMoharError(e, 'pdf_encrypted'),
    );
  });
});
