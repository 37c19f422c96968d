import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { deflateRawSync, deflateSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { decodeFilters, applyPredictor, inflate, type FilterSpec } from '../../pdf/filters.js';
import { PdfDict } from '../../pdf/objects.js';
import { isMoharError } from '../../common/errors.js';

const LIMIT = { maxBytes: 1 << 24, what: 'test limit' };
const spec = (name: string, parms?: Record<string, number>): FilterSpec => {
  let d: PdfDict | undefined;
  if (parms) {
    d = new PdfDict();
    for (const [k, v] of Object.entries(parms)) d.set(k, v);
  }
  return { name, parms: d };
};
const decode = (data: Uint8Array, ...filters: FilterSpec[]): Buffer => Buffer.from(decodeFilters(data, filters, LIMIT));

describe('FlateDecode', () => {
  const text = Buffer.from('The quick brown fox jumps over the lazy dog. '.repeat(200));

  test('round trip, also under the abbreviation /Fl', () => {
    assert.deepEqual(decode(deflateSync(text), spec('FlateDecode')), text);
    assert.deepEqual(decode(deflateSync(text), spec('Fl')), text);
  });

  test('a truncated stream yields what it holds', () => {
    const z = deflateSync(randomBytes(50_000));
    const out = decode(z.subarray(0, z.length >> 1), spec('FlateDecode'));
    assert.ok(out.length > 10_000 && out.length < 50_000);
  });

  test('a bad checksum, and raw deflate without header, are accepted', () => {
    const z = Buffer.from(deflateSync(text));
    z[z.length - 1]! ^= 0xff;
    assert.deepEqual(decode(z, spec('FlateDecode')), text);
    assert.deepEqual(decode(deflateRawSync(text), spec('FlateDecode')), text);
  });

  test('damage in the middle keeps the data before it', () => {
    const plain = randomBytes(100_000); // incompressible: stored blocks, damage stays local
    const z = Buffer.from(deflateSync(plain, { level: 0 }));
    z.fill(0xff, 70_000, 70_100); // clobbers a stored-block header region or data
    const out = decode(z, spec('FlateDecode'));
    assert.ok(out.length >= 60_000, `recovered ${out.length}`);
    assert.deepEqual(out.subarray(0, 60_000), plain.subarray(0, 60_000));
  });

  test('output beyond the limit is pdf_too_complex naming the limit', () => {
    const bomb = deflateSync(Buffer.alloc(10_000_000));
    assert.throws(
      () => inflate(bomb, { maxBytes: 1_000_000, what: 'a stream decodes to more than 1000000 bytes' }),
      (e) => isMoharError(e, 'pdf_too_complex') && /1000000 bytes/.test(e.message),
    );
  });
});

describe('predictors', () => {
  // Test-side PNG encoder: applies filter `type` to each row.
  function pngEncode(raw: Uint8Array, rowBytes: number, bpp: number, types: number[]): Uint8Array {
    const rows = raw.length / rowBytes;
    const out: number[] = [];
    for (let r = 0; r < rows; r++) {
      const type = types[r % types.length]!;
      out.push(type);
      for (let x = 0; x < rowBytes; x++) {
        const cur = raw[r * rowBytes + x]!;
        const left = x >= bpp ? raw[r * rowBytes + x - bpp]! : 0;
        const up = r > 0 ? raw[(r - 1) * rowBytes + x]! : 0;
        const ul = r > 0 && x >= bpp ? raw[(r - 1) * rowBytes + x - bpp]! : 0;
        const p = left + up - ul;
        const paeth =
          Math.abs(p - left) <= Math.abs(p - up) && Math.abs(p - left) <= Math.abs(p - ul)
            ? left
            : Math.abs(p - up) <= Math.abs(p - ul)
              ? up
              : ul;
        const pred = [0, left, up, (left + up) >> 1, paeth][type]!;
        out.push((cur - pred) & 0xff);
      }
    }
    return Uint8Array.from(out);
  }

  test('PNG predictors None, Sub, Up, Average and Paeth (Colors 3, Columns 5)', () => {
    const raw = randomBytes(15 * 8);
    const parms = new PdfDict();
    parms.set('Predictor', 15);
    parms.set('Colors', 3);
    parms.set('Columns', 5);
    const encoded = pngEncode(raw, 15, 3, [0, 1, 2, 3, 4]);
    assert.deepEqual(Buffer.from(applyPredictor(encoded, parms)), raw);
  });

  test('PNG Up as used by xref streams, through FlateDecode', () => {
    const raw = Buffer.from([1, 0, 10, 0, 1, 0, 20, 0, 1, 1, 0, 0, 2, 0, 5, 1]);
    const z = deflateSync(pngEncode(raw, 4, 1, [2]));
    assert.deepEqual(decode(z, spec('FlateDecode', { Predictor: 12, Columns: 4 })), raw);
  });

  test('TIFF predictor 2 with 8 and 16 bits per component', () => {
    const parms = new PdfDict();
    parms.set('Predictor', 2);
    parms.set('Colors', 2);
    parms.set('Columns', 3);
    assert.deepEqual(
      [...applyPredictor(Uint8Array.from([10, 20, 1, 2, 1, 2, 5, 5, 1, 1, 1, 1]), parms)],
      [10, 20, 11, 22, 12, 24, 5, 5, 6, 6, 7, 7],
    );
    parms.set('Colors', 1);
    parms.set('BitsPerComponent', 16);
    assert.deepEqual(
      [...applyPredictor(Uint8Array.from([0x01, 0x00, 0x00, 0xff, 0x00, 0x02]), parms)],
      [0x01, 0x00, 0x01, 0xff, 0x02, 0x01],
    );
  });
});

describe('ASCII and run-length filters', () => {
  test('ASCIIHexDecode with whitespace, EOD and odd length', () => {
    assert.equal(decode(Buffer.from('48 65 6c\n6C 6f 7>junk'), spec('AHx')).toString('latin1'), 'Hellop');
  });

  test('ASCII85Decode: known vector, z, whitespace, partial group', () => {
    const a85 = '9jqo^BlbD-BleB1DJ+*+F(f,q';
    assert.equal(decode(Buffer.from(a85 + '~>'), spec('A85')).toString(), 'Man is distinguished');
    assert.deepEqual([...decode(Buffer.from('z 9jqo^ ~>'), spec('ASCII85Decode'))], [0, 0, 0, 0, 77, 97, 110, 32]);
    assert.equal(decode(Buffer.from('9jqo~>'), spec('A85')).toString(), 'Man');
  });

  test('RunLengthDecode', () => {
    const data = Buffer.from([2, 0x61, 0x62, 0x63, 254, 0x78, 128, 0x7a]);
    assert.equal(decode(data, spec('RunLengthDecode')).toString(), 'abcxxx');
  });

  test('filter chains apply in order', () => {
    const z = deflateSync(Buffer.from('chained'));
    assert.equal(
      decode(Buffer.from(z.toString('hex') + '>'), spec('ASCIIHexDecode'), spec('FlateDecode')).toString(),
      'chained',
    );
  });
});

describe('LZWDecode', () => {
  // Test-side LZW encoder (PDF flavour: MSB first, clear code first, EarlyChange 1).
  function lzwEncode(input: Uint8Array): Uint8Array {
    const out: number[] = [];
    let acc = 0;
    let bits = 0;
    let width = 9;
    const put = (code: number): void => {
      acc = (acc << width) | code;
      bits += width;
      while (bits >= 8) {
        out.push((acc >>> (bits - 8)) & 0xff);
        bits -= 8;
      }
      acc &= (1 << bits) - 1;
    };
    let dict = new Map<string, number>();
    let next = 258;
    const reset = (): void => {
      dict = new Map();
      next = 258;
      width = 9;
    };
    put(256);
    let w = '';
    for (const c of input) {
      const wc = w + String.fromCharCode(c);
      if (wc.length === 1 || dict.has(wc)) {
        w = wc;
        continue;
      }
      put(w.length === 1 ? w.charCodeAt(0) : dict.get(w)!);
      dict.set(wc, next++);
      // The decoder defines each entry one code later, so with EarlyChange it widens when the
      // encoder's next code reaches 512, 1024, 2048.
      if (next >= 4094) {
        put(256);
        reset();
      } else if (next >= 2048) width = 12;
      else if (next >= 1024) width = 11;
      else if (next >= 512) width = 10;
      w = String.fromCharCode(c);
    }
    if (w) put(w.length === 1 ? w.charCodeAt(0) : dict.get(w)!);
    put(257);
    if (bits > 0) out.push((acc << (8 - bits)) & 0xff);
    return Uint8Array.from(out);
  }

  test('the example of ISO 32000-1 7.4.4.2', () => {
    const encoded = Buffer.from('800B6050220C0C8501', 'hex');
    assert.equal(decode(encoded, spec('LZWDecode')).toString('latin1'), '-----A---B');
  });

  test('round trip through code-width changes and table resets', () => {
    const input = Buffer.concat([randomBytes(3000), Buffer.from('abcabcabc'.repeat(2000))]);
    assert.deepEqual(decode(lzwEncode(input), spec('LZW')), input);
  });
});

describe('unsupported filters', () => {
  test('image filters fail only when decoding is asked for, as invalid_pdf', () => {
    assert.throws(
      () => decode(Buffer.from('x'), spec('DCTDecode')),
      (e) => isMoharError(e, 'invalid_pdf') && /DCTDecode/.test(e.message),
    );
    assert.equal(decode(Buffer.from('as is')).toString(), 'as is');
  });
});
