import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { inspectPdf } from '../../pdf/index.js';
import { isMoharError, MoharError, type ErrorCode } from '../../common/errors.js';
import {
  makePdf,
  buildPdf,
  encrypt,
  withObjectStreams,
  hostile,
  objectStream,
  xrefStreamObject,
} from '../support/pdf-fixtures.js';

const rejects = (
  pdf: Uint8Array,
  code: ErrorCode,
  message?: RegExp,
  limits?: Parameters<typeof inspectPdf>[1],
): void => {
  assert.throws(
    () => inspectPdf(pdf, limits),
    (e) => isMoharError(e, code) && (message === undefined || message.test(e.message)),
  );
};

describe('resource limits: pdf_too_complex', () => {
  test('100,000 nested arrays', () =>
    rejects(hostile.deepNesting(100_000), 'pdf_too_complex', /nested deeper than 200/));

  test('an object stream that inflates to more than 1 GiB', () => {
    const bomb = hostile.inflateBomb(1.1);
    assert.ok(bomb.length < 2 * 1024 * 1024, 'the bomb itself is small');
    rejects(bomb, 'pdf_too_complex', /more than 67108864 bytes/);
  });

  test('the total decoding budget across streams', () => {
    const pdf = withObjectStreams(makePdf({ pages: 50 }));
    rejects(pdf, 'pdf_too_complex', /total budget/, { maxTotalDecodedBytes: 200, maxInflateBytes: 1_000_000 });
  });

  test('100,000 pages: refused from the root /Count', () =>
    rejects(hostile.manyPages(100_000), 'pdf_too_complex', /10000 pages/));

  test('100,000 pages under a /Count that says 1', () =>
    rejects(hostile.lyingCount(100_000), 'pdf_too_complex', /limit: 10000 pages/));

  test('more objects than maxObjects', () => {
    rejects(makePdf({ pages: 20 }), 'pdf_too_complex', /more than 10 objects/, { maxObjects: 10 });
    rejects(withObjectStreams(makePdf({ pages: 20 })), 'pdf_too_complex', /more than 10/, { maxObjects: 10 });
  });

  test('an xref stream claiming billions of entries', () => {
    const rows = new Map<number, [number, number, number]>([[0, [0, 0, 65535]]]);
    const xs = xrefStreamObject(1, rows, '/Size 3000000000 /Root 2 0 R').dict.replace(
      /\/Index \[[^\]]*\]/,
      '/Index [0 3000000000]',
    );
    const pdf = Buffer.from(
      `%PDF-1.5\n1 0 obj\n<< ${xs} /Length 0 >>\nstream\n\nendstream\nendobj\nstartxref\n9\n%%EOF\n`,
      'latin1',
    );
    rejects(pdf, 'pdf_too_complex', /objects/);
  });

  test('a chain of streams whose /Length each needs the next one loaded', () => {
    const objects = [
      { num: 1, body: '<< /Type /Catalog /Pages 2 0 R /Chain 10 0 R >>' },
      { num: 2, body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
      { num: 3, body: '<< /Type /Page /Parent 2 0 R >>' },
      ...Array.from({ length: 500 }, (_, i) => ({
        num: 10 + i,
        body: `<< /Length ${11 + i} 0 R >>\nstream\nx\nendstream`,
      })),
    ];
    const pdf = buildPdf(objects, '/Root 1 0 R');
    const info = inspectPdf(pdf); // the chain is never followed unless something needs it
    assert.equal(info.pageCount, 1);
    const withChainOnPage = buildPdf(
      objects.map((o) => (o.num === 3 ? { num: 3, body: '<< /Type /Page /Parent 2 0 R /Rotate 10 0 R >>' } : o)),
      '/Root 1 0 R',
    );
    rejects(withChainOnPage, 'pdf_too_complex', /references nested more than 64 deep/);
  });
});

describe('broken files: invalid_pdf', () => {
  test('not a PDF, empty, header only, header and garbage', () => {
    rejects(hostile.notAPdf(), 'invalid_pdf', /%PDF-/);
    rejects(new Uint8Array(0), 'invalid_pdf');
    rejects(Buffer.from('%PDF-1.7\n'), 'invalid_pdf');
    rejects(Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(5000, 0xab)]), 'invalid_pdf');
  });

  test('%PDF- beyond the first 1024 bytes', () => {
    rejects(Buffer.concat([Buffer.alloc(1100, 0x20), makePdf()]), 'invalid_pdf', /first 1024 bytes/);
  });

  test('truncated in the middle', () => {
    const pdf = makePdf({ pages: 6 });
    for (const fraction of [0.05, 0.2, 0.4, 0.6]) rejects(hostile.truncated(pdf, fraction), 'invalid_pdf');
  });

  test('a /Kids cycle', () => rejects(hostile.kidsCycle(), 'invalid_pdf', /cycle/));

  test('a catalog whose /Pages is a reference loop', () => {
    const pdf = buildPdf(
      [
        { num: 1, body: '<< /Type /Catalog /Pages 5 0 R >>' },
        { num: 5, body: '6 0 R' },
        { num: 6, body: '5 0 R' },
      ],
      '/Root 1 0 R',
    );
    rejects(pdf, 'invalid_pdf', /page tree/);
  });

  test('an object stream with an unsupported filter holding the catalog', () => {
    const os = objectStream(4, [{ num: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' }]);
    const bad = { ...os, dict: os.dict.replace('/FlateDecode', '/JBIG2Decode') };
    const pdf = buildPdf([bad, { num: 2, body: '<< /Type /Pages /Kids [] /Count 0 >>' }], '/Root 1 0 R');
    rejects(pdf, 'invalid_pdf');
  });
});

describe('repaired instead of refused', () => {
  test('a /Prev cycle', () => assert.equal(inspectPdf(hostile.prevCycle()).pageCount, 2));

  test('a broken startxref', () => {
    const info = inspectPdf(hostile.brokenStartxref());
    assert.equal(info.pageCount, 3);
    assert.equal(info.repaired, true);
  });
});

describe('encrypted files: pdf_encrypted', () => {
  test('AES-256 with a user password', () => {
    rejects(encrypt(makePdf({ pages: 2 })), 'pdf_encrypted', /qpdf --decrypt in\.pdf out\.pdf/);
  });

  test('owner password only (opens without a password in viewers)', () => {
    rejects(encrypt(makePdf({ pages: 2 }), '', 'owner'), 'pdf_encrypted', /remove the password protection first/);
  });

  test('even when the xref is broken', () => {
    const text = encrypt(makePdf({ pages: 2 }))
      .toString('latin1')
      .replace(/startxref\s+\d+/, 'startxref\n3');
    rejects(Buffer.from(text, 'latin1'), 'pdf_encrypted');
  });
});

describe('mutation fuzzing: only the three error codes, never a crash', () => {
  // Deterministic PRNG so a failure can be reproduced.
  let seed = 0x2545f491;
  const rand = (n: number): number => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) % n;
  };
  const sources = [
    makePdf({
      pages: [{ rotate: 90 }, { cropBox: [10, 10, 200, 200] }],
      signatureFields: [{ name: 'S', rect: [1, 1, 50, 50], signed: true }],
      docMdp: 2,
    }),
    withObjectStreams(makePdf({ pages: 3, signatureFields: [{ name: 'S', rect: [1, 1, 50, 50] }] })),
  ];
  for (const [i, source] of sources.entries()) {
    test(`source ${i + 1}: 300 mutants`, () => {
      for (let m = 0; m < 300; m++) {
        const mutant = Buffer.from(source);
        const kind = rand(4);
        if (kind === 0) for (let k = 0; k < 1 + rand(8); k++) mutant[rand(mutant.length)] = rand(256);
        else if (kind === 1) mutant.fill(0x20, rand(mutant.length), rand(mutant.length));
        else if (kind === 2) mutant[rand(mutant.length)] = '[]<>()/%'.charCodeAt(rand(8));
        const input = kind === 3 ? mutant.subarray(0, rand(mutant.length)) : mutant;
        try {
          inspectPdf(input);
        } catch (e) {
          assert.ok(e instanceof MoharError, `mutant ${m} (kind ${kind}) threw ${String(e)}`);
          assert.ok(['invalid_pdf', 'pdf_too_complex', 'pdf_encrypted'].includes(e.code), e.code);
        }
      }
    });
  }
});

describe('huge containers and strings', () => {
  test('an array with more entries than maxObjects', () => {
    const pdf = makePdf({ catalogExtra: `/Big [${'0 '.repeat(5000)}]` });
    rejects(pdf, 'pdf_too_complex', /more than 1000 entries/, { maxObjects: 1000 });
    assert.equal(inspectPdf(pdf).pageCount, 1);
  });

  test('a 20 MB hex string is read without blowing up memory', () => {
    const pdf = makePdf({ catalogExtra: `/Blob <${'ab'.repeat(10_000_000)}>` });
    assert.equal(inspectPdf(pdf).pageCount, 1);
  });
});
