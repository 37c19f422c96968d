import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { inflateSync } from 'node:zlib';
import { isoFromPdfDate } from '../../../pdf/index.js';
import { PdfArray, PdfDict, PdfName, PdfRef, PdfStream, PdfString } from '../../../pdf/objects.js';
import { Parser } from '../../../pdf/parser.js';
import { serializeObject, formatNumber, formatName, makeStream } from '../../../pdf/write/serialize.js';
import { textString, pdfDate, toWinAnsi, transliterateDevanagari } from '../../../pdf/write/text.js';
import { isMoharError } from '../../../common/errors.js';

const opts = { maxDepth: 100 };
const parse = (b: Uint8Array) => new Parser(b, 0, opts).parseObject();
const text = (o: Parameters<typeof serializeObject>[0]) => serializeObject(o).toString('latin1');

describe('numbers', () => {
  test('integers as they are, reals without exponent and with at most 6 decimals', () => {
    assert.equal(formatNumber(0), '0');
    assert.equal(formatNumber(-0), '0');
    assert.equal(formatNumber(42), '42');
    assert.equal(formatNumber(-17), '-17');
    assert.equal(formatNumber(0.5), '0.5');
    assert.equal(formatNumber(1 / 3), '0.333333');
    assert.equal(formatNumber(1e-7), '0');
    assert.equal(formatNumber(-1e-9), '0');
    assert.equal(formatNumber(123456.25), '123456.25');
    assert.equal(formatNumber(1.5e10), '15000000000');
    assert.equal(formatNumber(2.000_000_4), '2');
  });
  test('non-finite and huge numbers are refused', () => {
    for (const n of [NaN, Infinity, -Infinity, 1e300, 2 ** 60]) {
      assert.throws(
        () => formatNumber(n),
        (e) => isMoharError(e, 'pdf_write_failed'),
      );
    }
  });
});

describe('names', () => {
  test('regular characters stay, delimiters, whitespace, # and non-ASCII are #xx-escaped', () => {
    assert.equal(formatName('Type'), '/Type');
    assert.equal(formatName('A B'), '/A#20B');
    assert.equal(formatName('a#b'), '/a#23b');
    assert.equal(formatName('x/y(z)'), '/x#2Fy#28z#29');
    assert.equal(formatName('**********'), '/**********');
    assert.equal(formatName('é'), '/#E9', 'latin1 byte, as the lexer reads it');
    assert.equal(formatName('राम'), '/#E0#A4#B0#E0#A4#BE#E0#A4#AE', 'UTF-8 beyond latin1');
  });
  test('round-trip through our parser', () => {
    for (const n of ['A B', 'a#b', 'x/y(z)<>[]{}%', 'é\u00ff', 'tab\there']) {
      const back = parse(Buffer.from(formatName(n), 'latin1'));
      assert.ok(back instanceof PdfName);
      assert.equal(back.name, n);
    }
  });
});

describe('strings', () => {
  test('literal strings escape backslash, parentheses, CR/LF and non-printable bytes', () => {
    assert.equal(
      text(new PdfString(Buffer.from('a(b)c\\d\r\n\x01\xff', 'latin1'), false)),
      '(a\\(b\\)c\\\\d\\r\\n\\001\\377)',
    );
  });
  test('hex strings stay hex', () => {
    assert.equal(text(new PdfString(Buffer.from([0, 0xab, 0x10]), true)), '<00AB10>');
  });
  test('every byte value round-trips through our parser', () => {
    const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    for (const hex of [false, true]) {
      const back = parse(serializeObject(new PdfString(all, hex)));
      assert.ok(back instanceof PdfString);
      assert.deepEqual(Buffer.from(back.bytes), all);
    }
  });
  test('text strings: PDFDocEncoding when possible, else UTF-16BE with BOM', () => {
    const latin = textString('Ünïcødé – “quoted” €');
    assert.equal(latin.hex, false);
    assert.equal(latin.toText(), 'Ünïcødé – “quoted” €');
    const hindi = textString('राम कुमार');
    assert.deepEqual([...hindi.bytes.subarray(0, 2)], [0xfe, 0xff]);
    assert.equal(hindi.toText(), 'राम कुमार');
    const emoji = textString('ok 👍');
    assert.equal(emoji.toText(), 'ok 👍', 'surrogate pairs survive');
  });
});

describe('containers and streams', () => {
  test('dictionaries, arrays, references, booleans and null', () => {
    const d = new PdfDict();
    d.set('Type', new PdfName('Annot'));
    d.set('Rect', new PdfArray([0, 1.5, -2, 3]));
    d.set('P', new PdfRef(12, 0));
    d.set('Open', true);
    d.set('Kids', new PdfArray([null, false]));
    assert.equal(text(d), '<< /Type /Annot /Rect [0 1.5 -2 3] /P 12 0 R /Open true /Kids [null false] >>');
    const back = parse(serializeObject(d));
    assert.ok(back instanceof PdfDict);
    assert.deepEqual((back.get('Rect') as PdfArray).items, [0, 1.5, -2, 3]);
    assert.equal((back.get('P') as PdfRef).key, '12 0');
  });
  test('streams get a direct /Length, replacing an indirect one', () => {
    const d = new PdfDict();
    d.set('Length', new PdfRef(99, 0));
    const s = new PdfStream(d, Buffer.from('xxhello worldxx'), 2, 13);
    assert.equal(text(s), '<< /Length 11 >>\nstream\nhello world\nendstream');
  });
  test('makeStream compresses with Flate when asked', () => {
    const data = Buffer.from('q 1 0 0 1 0 0 cm Q\n'.repeat(50));
    const s = makeStream(new PdfDict(), data, { compress: true });
    assert.equal((s.dict.get('Filter') as PdfName).name, 'FlateDecode');
    assert.deepEqual(inflateSync(s.raw()), data);
    assert.match(text(s), new RegExp(`/Length ${s.raw().length} >>`));
  });
});

describe('text for appearances', () => {
  test('PDF dates with a UTC offset', () => {
    const d = new Date('2024-05-01T09:00:05Z');
    assert.equal(pdfDate(d), "D:20240501090005+00'00'");
    assert.equal(pdfDate(d, 330), "D:20240501143005+05'30'");
    assert.equal(pdfDate(d, -300), "D:20240501040005-05'00'");
  });
  test("PDF dates read back as ISO 8601 UTC, with the standard's defaults for omitted parts", () => {
    const d = new Date('2024-05-01T09:00:05Z');
    for (const offset of [0, 330, -300]) assert.equal(isoFromPdfDate(pdfDate(d, offset)), d.toISOString());
    assert.equal(isoFromPdfDate('D:20240501143005Z'), '2024-05-01T14:30:05.000Z');
    assert.equal(isoFromPdfDate("D:20240501143005+05'30"), '2024-05-01T09:00:05.000Z');
    assert.equal(isoFromPdfDate('D:2024'), '2024-01-01T00:00:00.000Z');
    assert.equal(isoFromPdfDate('yesterday'), null);
    assert.equal(isoFromPdfDate(null), null);
  });
  test('Devanagari names are transliterated for display; other scripts become "?"', () => {
    assert.equal(transliterateDevanagari('राम कुमार'), 'Ram Kumar');
    assert.equal(transliterateDevanagari('अमित शर्मा'), 'Amit Sharma');
    assert.equal(transliterateDevanagari('प्रिया'), 'Priya');
    assert.equal(Buffer.from(toWinAnsi('José Łukasz')).toString('latin1'), 'José Lukasz');
    assert.equal(Buffer.from(toWinAnsi('東京')).toString('latin1'), '??');
    assert.equal(toWinAnsi('€')[0], 0x80, 'WinAnsi euro');
  });
});
