import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { Lexer } from '../../pdf/lexer.js';
import { PdfArray, PdfDict, PdfName, PdfRef, PdfStream, PdfString, type PdfObject } from '../../pdf/objects.js';
import { Parser } from '../../pdf/parser.js';
import { isMoharError } from '../../common/errors.js';

const bytes = (s: string): Uint8Array => Buffer.from(s, 'latin1');
const parse = (s: string, maxDepth = 200): PdfObject => new Parser(bytes(s), 0, { maxDepth }).parseObject();
const str = (o: PdfObject): string => Buffer.from((o as PdfString).bytes).toString('latin1');

describe('lexer', () => {
  test('skips all whitespace kinds and comments', () => {
    const lexer = new Lexer(bytes('\0\t\r\n\f %comment\r\n 42 % another\r/Name'));
    assert.deepEqual(lexer.next(), { type: 'number', value: 42, isInt: true, start: 17 });
    const name = lexer.next();
    assert.equal(name.type, 'name');
    assert.equal(lexer.next().type, 'eof');
  });

  test('reads numbers the way viewers do', () => {
    const values = (s: string): number[] => {
      const lexer = new Lexer(bytes(s));
      const out: number[] = [];
      for (let t = lexer.next(); t.type !== 'eof'; t = lexer.next()) if (t.type === 'number') out.push(t.value);
      return out;
    };
    assert.deepEqual(values('1 -2 +3 .5 -.25 4. --5 007'), [1, -2, 3, 0.5, -0.25, 4, -5, 7]);
    assert.deepEqual(values('1.2.3'), [1.2, 0.3]);
  });

  test('decodes #xx in names and keeps bytes losslessly', () => {
    const lexer = new Lexer(bytes('/A#20B#2fC/#E2#82#AC/x#zz'));
    assert.deepEqual(lexer.next(), { type: 'name', value: 'A B/C', start: 0 });
    const euro = lexer.next();
    assert.equal(euro.type === 'name' && Buffer.from(euro.value, 'latin1').toString('utf8'), '€');
    const bad = lexer.next();
    assert.equal(bad.type === 'name' && bad.value, 'x#zz');
  });
});

describe('parser: strings', () => {
  test('literal strings with nesting and every escape', () => {
    assert.equal(str(parse('(a(b)c)')), 'a(b)c');
    assert.equal(str(parse('(\\n\\r\\t\\b\\f\\(\\)\\\\)')), '\n\r\t\b\f()\\');
    assert.equal(str(parse('(\\101\\61\\0071)')), 'A1\x071');
    assert.equal(str(parse('(line\\\r\ncontinued\\\nhere)')), 'linecontinuedhere');
    assert.equal(str(parse('(cr\rcrlf\r\nlf\n)')), 'cr\ncrlf\nlf\n');
    assert.equal(str(parse('(\\q unknown escape)')), 'q unknown escape');
    assert.equal((parse('(x)') as PdfString).hex, false);
  });

  test('hex strings ignore whitespace and pad an odd digit', () => {
    const s = parse('<48 65\n6C6c 6F 7>') as PdfString;
    assert.equal(s.hex, true);
    assert.equal(str(s), 'Hellop');
  });

  test('long hex strings (a signature /Contents) read the same whichever way they are written', () => {
    // The reference: every hex digit up to ">" in pairs, anything else skipped, an odd last digit padded.
    const expected = (text: string): string => {
      const digits = text.slice(1, text.includes('>') ? text.indexOf('>') : undefined).replace(/[^0-9A-Fa-f]/g, '');
      return Buffer.from(digits.length % 2 ? `${digits}0` : digits, 'hex').toString('latin1');
    };
    const plain = Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 37) & 0xff)).toString('hex');
    const cases = [
      `<${plain}>`,
      `<${plain.toUpperCase()}>`,
      `<${'0'.repeat(32768)}>`,
      `<${plain.slice(0, 64)}>`,
      `<${plain.slice(0, 62)}>`,
      `<${plain}7>`,
      `<${plain.slice(0, 100)} ${plain.slice(100)}>`,
      `<${plain.slice(0, 100)}zz${plain.slice(100)}>`,
      `<${plain.slice(0, 99)}x${plain.slice(99, 200)}>`,
      `<${plain.slice(0, 99)}\n${plain.slice(99, 201)}>`,
      `<${plain}`,
    ];
    for (const text of cases) {
      const input = `${text} /After`;
      const lexer = new Lexer(bytes(input));
      const token = lexer.next();
      assert.equal(token.type, 'string', text.slice(0, 40));
      assert.equal(Buffer.from(token.value as Uint8Array).toString('latin1'), expected(input), text.slice(0, 40));
      if (text.includes('>')) assert.deepEqual(lexer.next(), { type: 'name', value: 'After', start: text.length + 1 });
    }
  });

  test('text strings decode UTF-16BE, UTF-8 and PDFDocEncoding', () => {
    assert.equal((parse('<FEFF00480069>') as PdfString).toText(), 'Hi');
    assert.equal((parse('<EFBBBFC3A9>') as PdfString).toText(), 'é');
    assert.equal((parse('<80A0E9>') as PdfString).toText(), '\u2022\u20acé');
  });

  test('an unterminated string does not throw', () => {
    assert.equal(str(parse('(abc')), 'abc');
  });
});

describe('parser: objects', () => {
  test('arrays and dictionaries with references, booleans and null', () => {
    const d = parse('<< /A [1 0 R 2 3 R 4] /B true /C false /D null /E 5 0 R /F<</G/H>> >>') as PdfDict;
    const a = d.get('A') as PdfArray;
    assert.ok(a.get(0) instanceof PdfRef);
    assert.equal((a.get(0) as PdfRef).key, '1 0');
    assert.equal((a.get(1) as PdfRef).key, '2 3');
    assert.equal(a.get(2), 4);
    assert.equal(d.get('B'), true);
    assert.equal(d.get('C'), false);
    assert.equal(d.has('D'), false, 'a null value means the key is absent');
    assert.equal((d.get('E') as PdfRef).num, 5);
    assert.equal((d.get('F') as PdfDict).getName('G'), 'H');
  });

  test('top-level reference by look-ahead, and plain integers left alone', () => {
    assert.equal((parse('12 0 R') as PdfRef).key, '12 0');
    const parser = new Parser(bytes('12 0 obj'), 0, { maxDepth: 10 });
    assert.equal(parser.parseObject(), 12);
    assert.equal(parser.parseObject(), 0);
  });

  test('tolerates junk: mismatched closers, stray keywords, keys that are not names', () => {
    const d = parse('<< /A [1 2 >> ] /B 3 junk /C 4 (x) /D 5 >>') as PdfDict;
    assert.deepEqual((d.get('A') as PdfArray).items, [1, 2]);
    assert.equal(d.get('B'), 3);
    assert.equal(d.get('C'), 4);
    assert.equal(d.get('D'), 5);
  });

  test('a broken dictionary is closed at endobj', () => {
    const p = new Parser(bytes('1 0 obj << /A 1 /B [2 endobj 2 0 obj 7 endobj'), 0, { maxDepth: 10 });
    const first = p.parseIndirectObject();
    assert.equal(first.num, 1);
    assert.equal((first.value as PdfDict).get('A'), 1);
    const second = p.parseIndirectObject();
    assert.equal(second.num, 2);
    assert.equal(second.value, 7);
  });

  test('100,000 nested arrays give pdf_too_complex, not a stack overflow', () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    assert.throws(
      () => parse(deep),
      (e) => isMoharError(e, 'pdf_too_complex') && /nested deeper than 200/.test(e.message),
    );
    assert.throws(
      () => parse('<<'.repeat(100_000)),
      (e) => isMoharError(e, 'pdf_too_complex'),
    );
    assert.ok(parse('['.repeat(200) + ']'.repeat(200)) instanceof PdfArray, 'exactly maxDepth is fine');
  });

  test('unexpected end of data is invalid_pdf', () => {
    assert.throws(
      () => parse('   '),
      (e) => isMoharError(e, 'invalid_pdf'),
    );
  });
});

describe('parser: indirect objects and streams', () => {
  const indirect = (s: string, resolveLength?: (r: PdfRef) => number | undefined) =>
    new Parser(bytes(s), 0, { maxDepth: 50, ...(resolveLength ? { resolveLength } : {}) }).parseIndirectObject();
  const data = (o: PdfObject): string => Buffer.from((o as PdfStream).raw()).toString('latin1');

  test('object with a correct /Length, CRLF after "stream"', () => {
    const o = indirect('7 0 obj\n<< /Length 5 >>\nstream\r\nhello\r\nendstream\nendobj\n');
    assert.equal(o.num, 7);
    assert.equal(o.offset, 0);
    assert.equal(data(o.value), 'hello');
    assert.equal((o.value as PdfStream).dataStart, '7 0 obj\n<< /Length 5 >>\nstream\r\n'.length);
  });

  test('a wrong /Length falls back to searching endstream', () => {
    assert.equal(
      data(indirect('1 0 obj << /Length 999 >> stream\nhello world\nendstream endobj').value),
      'hello world',
    );
    assert.equal(data(indirect('1 0 obj << /Length 3 >> stream\nhello world\nendstream endobj').value), 'hello world');
    assert.equal(data(indirect('1 0 obj << >> stream\nabc\r\nendstream').value), 'abc');
  });

  test('an indirect /Length is resolved through the callback', () => {
    const o = indirect('1 0 obj << /Length 9 0 R >> stream\nabcendstream\nendobj', (r) =>
      r.num === 9 ? 3 : undefined,
    );
    assert.equal(data(o.value), 'abc');
    const unknown = indirect('1 0 obj << /Length 9 0 R >> stream\nabc\nendstream\nendobj', () => undefined);
    assert.equal(data(unknown.value), 'abc');
  });

  test('missing endobj and missing endstream are tolerated', () => {
    const p = new Parser(bytes('1 0 obj << /A 1 >>\n2 0 obj (x) endobj'), 0, { maxDepth: 5 });
    assert.equal((p.parseIndirectObject().value as PdfDict).get('A'), 1);
    assert.equal(p.parseIndirectObject().num, 2);
    assert.equal(data(indirect('1 0 obj << /Length 100 >> stream\ntruncated').value), 'truncated');
  });

  test('a wrong header is invalid_pdf', () => {
    assert.throws(
      () => indirect('1 0 xyz << >>'),
      (e) => isMoharError(e, 'invalid_pdf'),
    );
  });

  test('names are PdfName instances', () => {
    assert.ok(parse('/Type') instanceof PdfName);
    assert.equal(String(parse('/Type')), '/Type');
  });
});
