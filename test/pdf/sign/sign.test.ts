import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  PdfReader,
  timestampPdf,
  prepareSignature,
  embedSignature,
  assertPrefix,
  checkSignable,
  inspectPdf,
  RESERVE_WITH_TIMESTAMP,
} from '../../../pdf/index.js';
import { PdfDict, PdfName, PdfString, PdfStream, PdfRef } from '../../../pdf/objects.js';
import { byteRangeData, byteRangeDigest, RESERVE_DEFAULT } from '../../../pdf/sign/prepare.js';
import { signPdf } from '../../../pdf/sign/sign-pdf.js';
import { isMoharError } from '../../../common/errors.js';
import {
  makePdf,
  samples,
  withObjectStreams,
  linearize,
  appendUpdate,
  makeHybridPdfWithSignatureField,
  qpdfCheck,
  hasTool,
  renderPageGray,
  darkPixelBounds,
  encrypt,
  buildPdf,
  type PdfFixtureOptions,
} from '../../support/pdf-fixtures.js';
import { makeTestSigner, pdfsig, signingToolsAvailable } from '../../support/openssl-signer.js';
import { verifyTimestampToken, makeJpeg } from './helpers.js';
import { makePng } from '../../support/png.js';

const TOOLS = signingToolsAvailable();
const skip = !TOOLS && 'qpdf, pdfsig, pdftoppm or openssl not installed';
const signer = TOOLS ? makeTestSigner() : undefined;
after(() => signer?.cleanup());

const WITNESS = { name: 'Witness', page: 1, rect: [300, 100, 500, 150] as [number, number, number, number] };
const withWitness = (opts: PdfFixtureOptions = {}): Buffer => makePdf({ ...opts, signatureFields: [WITNESS] });

/** Every kind of input, each with an empty signature field "Witness" on page 1. */
const KINDS: Record<string, () => Buffer> = {
  classic: () => withWitness({ pages: [{ text: 'Classic' }, {}] }),
  'object streams + xref stream': () => withObjectStreams(withWitness({ pages: 2 })),
  linearized: () => linearize(withWitness({ pages: 3 })),
  'earlier incremental update': () =>
    appendUpdate(withWitness({ pages: 2 }), [
      { num: 4, body: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Rotate 180 >>' },
    ]),
  hybrid: () => makeHybridPdfWithSignatureField(3, 'Witness'),
  'rotated page': () => withWitness({ pages: [{ mediaBox: [0, 0, 595, 842], rotate: 90 }] }),
  'offset MediaBox': () =>
    withWitness({ pages: [{ mediaBox: [-100, -100, 512, 692], cropBox: [-50, -50, 500, 650], rotate: 270 }] }),
  'junk after %%EOF': () =>
    Buffer.concat([withWitness(), Buffer.from('\r\n<html>mail gateway junk</html>\n\0\0', 'latin1')]),
  'classic without EOL at the end': () => {
    const pdf = withWitness();
    return pdf.subarray(0, pdf.length - 1);
  },
};

/** Structural checks of one signing step. */
function checkRevision(before: Uint8Array, afterBytes: Uint8Array): void {
  assertPrefix(before, afterBytes);
  const r0 = PdfReader.open(before);
  const r1 = PdfReader.open(afterBytes);
  assert.equal(r1.xref.sections.length, r0.xref.sections.length + 1, 'exactly one new section');
  assert.equal(r1.xrefKind, r0.xrefKind === 'stream' ? 'stream' : 'table', 'section kind follows the previous one');
  assert.equal(r1.xref.sections[0]!.trailer.get('Prev'), r0.xref.startxref);
  const written = [...r1.xref.entries]
    .filter(([, e]) => e.type === 'offset' && e.offset >= before.length)
    .map(([n]) => n);
  const fresh = written.filter((n) => n >= r0.size).sort((a, b) => a - b);
  assert.ok(fresh.length > 0);
  assert.equal(fresh[0], r0.size, 'new numbers start at the old /Size');
  for (const n of written.filter((x) => x < r0.size)) {
    assert.notEqual(r0.xref.entries.get(n)?.type ?? 'free', 'free', `object ${n} existed before`);
  }
  assert.ok(r1.size > r0.size);
}

describe('signing every kind of file three times', () => {
  for (const [kind, make] of Object.entries(KINDS)) {
    test(kind, { skip }, async () => {
      const original = make();
      const cb = signer!.callback();
      const t = new Date('2025-03-01T10:00:00Z');
      const s1 = await signPdf(
        original,
        {
          field: { page: 1, rect: { x: 30, y: 30, width: 200, height: 50 } },
          signingTime: t,
          name: 'First Signer',
          reason: 'Approved',
        },
        cb,
      );
      checkRevision(original, s1.bytes);
      const s2 = await signPdf(s1.bytes, { field: { invisible: true }, signingTime: t, name: 'Second Signer' }, cb);
      checkRevision(s1.bytes, s2.bytes);
      const s3 = await signPdf(
        s2.bytes,
        { field: { name: 'Witness' }, signingTime: t, name: 'Third Signer', location: 'Pune' },
        cb,
      );
      checkRevision(s2.bytes, s3.bytes);
      assertPrefix(original, s3.bytes);
      assert.deepEqual([s1.fieldName, s2.fieldName, s3.fieldName], ['Signature1', 'Signature2', 'Witness']);

      const report = pdfsig(s3.bytes);
      assert.equal(report.signatures.length, 3, report.output);
      for (const s of report.signatures) {
        assert.equal(s.validation, 'Signature is Valid.', `${s.field}: ${report.output}`);
        assert.equal(s.subFilter, 'ETSI.CAdES.detached');
      }
      assert.deepEqual(
        report.signatures.filter((s) => s.totalDocument).map((s) => s.field),
        ['Witness'],
        'only the last covers the whole file',
      );
      const check = qpdfCheck(s3.bytes);
      assert.ok(check.ok, check.output);
      const fields = inspectPdf(s3.bytes).signatureFields;
      assert.deepEqual(fields.map((f) => [f.name, f.signed]).sort(), [
        ['Signature1', true],
        ['Signature2', true],
        ['Witness', true],
      ]);
    });
  }
});

describe('the signature dictionary', () => {
  test('PAdES entries, /M with offset, text strings, placeholder sizes', { skip }, async () => {
    const prepared = prepareSignature(makePdf(), {
      field: { invisible: true },
      signingTime: new Date('2025-03-01T10:00:00Z'),
      timeZoneOffsetMinutes: 330,
      name: 'राम कुमार',
      reason: 'I agree',
      location: 'Pune',
      contactInfo: 'ram@example.in',
    });
    assert.equal(prepared.contentsLength, 2 * RESERVE_DEFAULT);
    assert.equal(prepared.byteRange[1], prepared.contentsOffset - 1);
    assert.equal(prepared.byteRange[2], prepared.contentsOffset + prepared.contentsLength + 1);
    assert.equal(prepared.byteRange[2] + prepared.byteRange[3], prepared.bytes.length);
    assert.deepEqual(prepared.digest, byteRangeDigest(prepared.bytes, prepared.byteRange));
    const signed = embedSignature(prepared, signer!.cms(byteRangeData(prepared)));
    const r = PdfReader.open(signed);
    const fields = r.getArray(r.getDict(r.catalog, 'AcroForm'), 'Fields')!;
    assert.equal(fields.length, 1);
    const widget = r.resolve(fields.get(0)) as PdfDict;
    assert.equal(r.getNumber(widget, 'F'), 132, 'invisible: print + locked');
    assert.deepEqual(r.getArray(widget, 'Rect')!.items, [0, 0, 0, 0]);
    const sig = r.getDict(widget, 'V')!;
    assert.equal(r.getName(sig, 'Type'), 'Sig');
    assert.equal(r.getName(sig, 'Filter'), 'Adobe.PPKLite');
    assert.equal(r.getName(sig, 'SubFilter'), 'ETSI.CAdES.detached');
    assert.equal((sig.get('M') as PdfString).toText(), "D:20250301153000+05'30'");
    assert.equal((sig.get('Name') as PdfString).toText(), 'राम कुमार', 'UTF-16BE keeps the exact name');
    assert.equal((sig.get('Reason') as PdfString).toText(), 'I agree');
    assert.equal((sig.get('Location') as PdfString).toText(), 'Pune');
    assert.equal((sig.get('ContactInfo') as PdfString).toText(), 'ram@example.in');
    assert.deepEqual(r.getArray(sig, 'ByteRange')!.items, [...prepared.byteRange]);
    assert.equal(r.getNumber(r.getDict(r.catalog, 'AcroForm'), 'SigFlags'), 3);
    assert.equal(pdfsig(signed).signatures[0]!.validation, 'Signature is Valid.');
  });

  test('the reserve: 32 KiB when a timestamp will be embedded, or as asked', () => {
    const p = prepareSignature(makePdf(), { field: { invisible: true }, signingTime: new Date(), timestamp: true });
    assert.equal(p.contentsLength, 2 * RESERVE_WITH_TIMESTAMP);
    const q = prepareSignature(makePdf(), { field: { invisible: true }, signingTime: new Date(), reserve: 4000 });
    assert.equal(q.contentsLength, 8000);
    assert.throws(
      () => prepareSignature(makePdf(), { field: { invisible: true }, signingTime: new Date(), reserve: 10 }),
      (e) => isMoharError(e, 'bad_request'),
    );
  });

  test('signature_too_large when the CMS does not fit, and nothing is written', { skip }, async () => {
    const pdf = makePdf();
    const cms = signer!.cms(Buffer.from('anything'));
    assert.ok(cms.length > 1024);
    const prepared = prepareSignature(pdf, { field: { invisible: true }, signingTime: new Date(), reserve: 1024 });
    const copy = Buffer.from(prepared.bytes);
    assert.throws(
      () => embedSignature(prepared, cms),
      (e) => isMoharError(e, 'signature_too_large') && /reserved/.test(e.message),
    );
    assert.deepEqual(prepared.bytes, copy, 'prepared bytes untouched');
    await assert.rejects(
      signPdf(pdf, { field: { invisible: true }, signingTime: new Date(), reserve: 1024 }, async () => cms),
      (e) => isMoharError(e, 'signature_too_large'),
    );
  });

  test('embedSignature refuses a second embed and tampered bytes', { skip }, () => {
    const prepared = prepareSignature(makePdf(), { field: { invisible: true }, signingTime: new Date() });
    const cms = signer!.cms(byteRangeData(prepared));
    const once = embedSignature(prepared, cms);
    assert.throws(
      () => embedSignature({ ...prepared, bytes: once }, cms),
      (e) => isMoharError(e, 'pdf_write_failed'),
    );
    const tampered = Buffer.from(prepared.bytes);
    tampered[20] = 0x20;
    assert.throws(
      () => embedSignature({ ...prepared, bytes: tampered }, cms),
      (e) => isMoharError(e, 'pdf_write_failed'),
    );
  });
});

describe('refusals before the key is used', () => {
  const never = async (): Promise<Uint8Array> => {
    throw new Error('the key must not be asked');
  };
  test('a certified document with DocMDP P=1', async () => {
    const pdf = samples.certified(1);
    assert.throws(
      () => checkSignable(pdf),
      (e) => isMoharError(e, 'document_locked'),
    );
    await assert.rejects(signPdf(pdf, { field: { invisible: true }, signingTime: new Date() }, never), (e) =>
      isMoharError(e, 'document_locked'),
    );
  });
  test('P=2 allows a further signature', { skip }, async () => {
    const signed = await signPdf(
      samples.certified(2),
      { field: { invisible: true }, signingTime: new Date() },
      signer!.callback(),
    );
    assert.equal(pdfsig(signed.bytes).signatures.at(-1)!.validation, 'Signature is Valid.');
  });
  test('an encrypted document', { skip: !hasTool('qpdf') && 'qpdf not installed' }, async () => {
    await assert.rejects(
      signPdf(encrypt(makePdf()), { field: { invisible: true }, signingTime: new Date() }, never),
      (e) => isMoharError(e, 'pdf_encrypted'),
    );
  });
  test('an unknown field lists the empty ones; a signed field is refused', async () => {
    const pdf = samples.signedField();
    await assert.rejects(
      signPdf(pdf, { field: { name: 'Nope' }, signingTime: new Date() }, never),
      (e) => isMoharError(e, 'signature_field_not_found') && /"Signer2"/.test(e.message) && !/Signer1/.test(e.message),
    );
    await assert.rejects(
      signPdf(pdf, { field: { name: 'Signer1' }, signingTime: new Date() }, never),
      (e) => isMoharError(e, 'signature_field_signed') && /"Signer2"/.test(e.message),
    );
  });
  test('bad placements', async () => {
    const pdf = makePdf({ pages: 2 });
    const at = (field: Parameters<typeof signPdf>[1]['field']) =>
      signPdf(pdf, { field, signingTime: new Date() }, never);
    await assert.rejects(at({ page: 3, rect: { x: 0, y: 0, width: 10, height: 10 } }), (e) =>
      isMoharError(e, 'page_out_of_range'),
    );
    await assert.rejects(at({ page: 1, rect: { x: 600, y: 0, width: 100, height: 10 } }), (e) =>
      isMoharError(e, 'outside_page'),
    );
    await assert.rejects(at({ page: 1, rect: { x: 0, y: 0, width: 0, height: 10 } }), (e) =>
      isMoharError(e, 'empty_rectangle'),
    );
    await assert.rejects(
      signPdf(
        samples.emptySignatureField(),
        { field: { invisible: true, name: 'Signature1' }, signingTime: new Date() },
        never,
      ),
      (e) => isMoharError(e, 'field_name_taken'),
    );
  });
});

describe('visible appearances land where asked', () => {
  const rect = { x: 60, y: 80, width: 220, height: 60 };
  const pages = [
    { label: 'Letter', spec: {} },
    { label: '/Rotate 90', spec: { mediaBox: [0, 0, 595, 842] as [number, number, number, number], rotate: 90 } },
    {
      label: '/Rotate 180 with CropBox',
      spec: {
        mediaBox: [0, 0, 842, 595] as [number, number, number, number],
        cropBox: [21, 21, 821, 574] as [number, number, number, number],
        rotate: 180,
      },
    },
    {
      label: 'offset MediaBox, /Rotate 270',
      spec: { mediaBox: [-100, -100, 512, 692] as [number, number, number, number], rotate: 270 },
    },
  ];
  for (const { label, spec } of pages) {
    test(label, { skip }, async () => {
      const signed = await signPdf(
        makePdf({ pages: [spec] }),
        { field: { page: 1, rect }, signingTime: new Date(), name: 'Upright Text', appearance: { border: true } },
        signer!.callback(),
      );
      const b = darkPixelBounds(renderPageGray(signed.bytes, 1));
      assert.ok(b, 'something is drawn');
      // The border is drawn on the rectangle's edge: the drawing fills it to within a pixel.
      assert.ok(Math.abs(b.x - rect.x) <= 1 && Math.abs(b.y - rect.y) <= 1, JSON.stringify(b));
      assert.ok(Math.abs(b.width - rect.width) <= 1 && Math.abs(b.height - rect.height) <= 1, JSON.stringify(b));
    });
  }

  test('text reads upright on a /Rotate 90 page: lines are wider than tall', { skip }, async () => {
    const signed = await signPdf(
      makePdf({ pages: [{ rotate: 90 }] }),
      {
        field: { page: 1, rect },
        signingTime: new Date(),
        appearance: { lines: ['WWWWWWWWWWWWWWWWWWWW'], fontSize: 12 },
      },
      signer!.callback(),
    );
    const b = darkPixelBounds(renderPageGray(signed.bytes, 1))!;
    assert.ok(b.width > 3 * b.height, `one horizontal line of text, got ${JSON.stringify(b)}`);
    assert.ok(
      b.x >= rect.x && b.y >= rect.y && b.x + b.width <= rect.x + rect.width && b.y + b.height <= rect.y + rect.height,
    );
  });

  test('a PNG with transparency: transparent pixels stay white (SMask)', { skip }, async () => {
    // 40 x 20: left half opaque black, right half black but fully transparent.
    const png = makePng(40, 20, (x) => [0, 0, 0, x < 20 ? 255 : 0]);
    const box = { x: 100, y: 100, width: 200, height: 100 };
    const signed = await signPdf(
      makePdf(),
      { field: { page: 1, rect: box }, signingTime: new Date(), appearance: { image: png, showText: false } },
      signer!.callback(),
    );
    const b = darkPixelBounds(renderPageGray(signed.bytes, 1))!;
    // the image is scaled to 196 x 98 (2pt padding), centred: opaque half is 98 wide
    assert.ok(Math.abs(b.width - 98) <= 2 && Math.abs(b.height - 98) <= 2, JSON.stringify(b));
    assert.ok(Math.abs(b.x - 102) <= 2, JSON.stringify(b));
    assert.equal(pdfsig(signed.bytes).signatures[0]!.validation, 'Signature is Valid.');
  });

  test('a JPEG with text beside it', { skip }, async () => {
    const jpeg = makeJpeg(makePdf({ pages: [{ mediaBox: [0, 0, 200, 100], content: '0 g 0 0 200 100 re f' }] }));
    const box = { x: 100, y: 300, width: 300, height: 80 };
    const signed = await signPdf(
      makePdf(),
      { field: { page: 1, rect: box }, signingTime: new Date(), name: 'Image Signer', appearance: { image: jpeg } },
      signer!.callback(),
    );
    const r = PdfReader.open(signed.bytes);
    const images = [...r.xref.entries.keys()]
      .map((n) => r.resolve(r.getObject(new PdfRef(n, 0))))
      .filter((o) => o instanceof PdfStream && (o.dict.get('Filter') as PdfName | null)?.name === 'DCTDecode');
    assert.equal(images.length, 1, 'JPEG embedded as DCTDecode');
    const b = darkPixelBounds(renderPageGray(signed.bytes, 1))!;
    assert.ok(
      b.x >= box.x && b.y >= box.y && b.x + b.width <= box.x + box.width && b.y + b.height <= box.y + box.height,
      JSON.stringify(b),
    );
    assert.ok(b.x <= box.x + 3, 'image at the left edge');
  });

  test('signing into an existing visible field draws in its widget', { skip }, async () => {
    const pdf = samples.emptySignatureField(); // user [72 72 272 122] on Letter: view x 72, y 670
    const signed = await signPdf(
      pdf,
      { field: { name: 'Signature1' }, signingTime: new Date(), appearance: { border: true } },
      signer!.callback(),
    );
    const b = darkPixelBounds(renderPageGray(signed.bytes, 1))!;
    assert.deepEqual([Math.round(b.x), Math.round(b.y), Math.round(b.width), Math.round(b.height)], [72, 670, 200, 50]);
  });
});

describe('document timestamps', () => {
  test(
    'DocTimeStamp over a signed file: openssl verifies the token over the ByteRange; the signature stays valid',
    { skip },
    async () => {
      const signed = await signPdf(
        makePdf(),
        { field: { invisible: true }, signingTime: new Date() },
        signer!.callback(),
      );
      let token: Buffer | undefined;
      let data: Buffer | undefined;
      const stamped = await timestampPdf(signed.bytes, async (digest, prepared) => {
        data = byteRangeData(prepared);
        token = signer!.timestampToken(data);
        assert.equal(digest.length, 32);
        return token;
      });
      checkRevision(signed.bytes, stamped.bytes);
      assert.equal(stamped.fieldName, 'DocTimeStamp1');
      const v = verifyTimestampToken(signer!, token!, data!);
      assert.ok(v.ok, v.output);
      const r = PdfReader.open(stamped.bytes);
      const sig = inspectPdf(stamped.bytes).signatureFields.find((f) => f.name === 'DocTimeStamp1')!;
      const dict = r.resolve(
        r.getDict(r.getObject(new PdfRef(sig.ref!.num, sig.ref!.gen)) as PdfDict, 'V') ?? null,
      ) as PdfDict;
      assert.equal(r.getName(dict, 'Type'), 'DocTimeStamp');
      assert.equal(r.getName(dict, 'SubFilter'), 'ETSI.RFC3161');
      const report = pdfsig(stamped.bytes);
      assert.equal(report.signatures[0]!.validation, 'Signature is Valid.', report.output);
      assert.ok(qpdfCheck(stamped.bytes).ok);
    },
  );
});

describe('only the object that holds a container gets a new version', () => {
  const rewritten = (before: Uint8Array, after: Uint8Array): number[] => {
    const r = PdfReader.open(after);
    return [...r.xref.entries]
      .filter(([n, e]) => e.type === 'offset' && e.offset >= before.length && n < PdfReader.open(before).size)
      .map(([n]) => n)
      .sort((a, b) => a - b);
  };
  test('indirect /AcroForm, /Fields and /Annots: those objects, not the catalog or the page', { skip }, async () => {
    const pdf = buildPdf(
      [
        { num: 1, body: '<< /Type /Catalog /Pages 2 0 R /AcroForm 4 0 R >>' },
        { num: 2, body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
        { num: 3, body: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Annots 6 0 R >>' },
        { num: 4, body: '<< /Fields 5 0 R >>' },
        { num: 5, body: '[]' },
        { num: 6, body: '[7 0 R]' },
        { num: 7, body: '<< /Type /Annot /Subtype /Square /Rect [400 400 450 450] /C [1 0 0] >>' },
      ],
      '/Root 1 0 R',
    );
    const signed = await signPdf(
      pdf,
      { field: { page: 1, rect: { x: 10, y: 10, width: 100, height: 40 } }, signingTime: new Date() },
      signer!.callback(),
    );
    assert.deepEqual(rewritten(pdf, signed.bytes), [4, 5, 6], 'AcroForm (SigFlags), Fields array, Annots array');
    const r = PdfReader.open(signed.bytes);
    assert.equal(
      r.getArray(r.getObject(new PdfRef(3, 0)) as PdfDict, 'Annots')!.length,
      2,
      'the existing annotation is kept',
    );
    assert.equal(pdfsig(signed.bytes).signatures[0]!.validation, 'Signature is Valid.');
  });
  test('inline containers: the catalog and the page', { skip }, async () => {
    const pdf = makePdf({ signatureFields: [{ name: 'Old', rect: [0, 0, 0, 0] }] }); // inline /AcroForm, inline /Annots
    const signed = await signPdf(
      pdf,
      { field: { page: 1, rect: { x: 10, y: 10, width: 100, height: 40 } }, signingTime: new Date() },
      signer!.callback(),
    );
    assert.deepEqual(rewritten(pdf, signed.bytes), [1, 3], 'catalog and page');
    assert.ok(qpdfCheck(signed.bytes).ok);
  });
  test('a document without an AcroForm gets an indirect one', { skip }, async () => {
    const pdf = makePdf();
    const signed = await signPdf(pdf, { field: { invisible: true }, signingTime: new Date() }, signer!.callback());
    const r = PdfReader.open(signed.bytes);
    assert.ok(r.catalog.get('AcroForm') instanceof PdfRef);
    assert.equal(r.getNumber(r.getDict(r.catalog, 'AcroForm'), 'SigFlags'), 3);
  });
});
