/** The fresh-PDF writer: wrapping, pagination, WinAnsi text, attachments; checked with qpdf and poppler. */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { isMoharError } from '../../../common/errors.js';
import { PdfReader, getPages } from '../../../pdf/index.js';
import { A4, layoutBlocks, newTextDocument, textWidth, wrapLine, type Block } from '../../../pdf/write/new-document.js';
import { hasTool, qpdfCheck, runOnFile } from '../../support/pdf-fixtures.js';

const TOOLS = hasTool('qpdf') && hasTool('pdftotext');
const skip = !TOOLS && 'qpdf or pdftotext not installed';

const LOREM =
  'Every signer opened the envelope from a link sent by e-mail, agreed to sign electronically and signed; the server recorded each act with the time, the address and the browser it came from.';

/** pdftotext's text of the whole file. */
function extract(pdf: Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'mohar-nd-'));
  try {
    writeFileSync(join(dir, 'in.pdf'), pdf);
    const r = spawnSync('pdftotext', [join(dir, 'in.pdf'), '-'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('wrapLine', () => {
  test('breaks at spaces within the width and drops the spaces at the break', () => {
    const width = 200;
    const lines = wrapLine(LOREM, 'Helvetica', 10, width);
    assert.ok(lines.length > 3);
    for (const line of lines) {
      assert.ok(textWidth(line, 'Helvetica', 10) <= width + 1e-9, 'each line fits');
      const s = Buffer.from(line).toString('latin1');
      assert.equal(s, s.trim(), 'no space at either end');
    }
    assert.equal(lines.map((l) => Buffer.from(l).toString('latin1')).join(' '), LOREM, 'nothing lost or reordered');
  });

  test('a word wider than the line is split; Courier is monospaced', () => {
    const hash = 'ab'.repeat(64);
    const lines = wrapLine(hash, 'Courier', 10, 60 * 10); // 600 units = 6 pt per glyph: 100 per line
    assert.deepEqual(
      lines.map((l) => l.length),
      [100, 28],
    );
  });

  test('bold text is wider than regular and wraps sooner', () => {
    const regular = wrapLine(LOREM, 'Helvetica', 10, 150).length;
    const bold = wrapLine(LOREM, 'Helvetica-Bold', 10, 150).length;
    assert.ok(bold >= regular);
    assert.ok(
      textWidth(Buffer.from('Mohar', 'latin1'), 'Helvetica-Bold', 10) >
        textWidth(Buffer.from('Mohar', 'latin1'), 'Helvetica', 10),
    );
  });

  test('Devanagari is transliterated; an empty line stays one empty line', () => {
    assert.equal(Buffer.from(wrapLine('राम कुमार', 'Helvetica', 10, 500)[0]!).toString('latin1'), 'Ram Kumar');
    assert.deepEqual(
      wrapLine('', 'Helvetica', 10, 500).map((l) => l.length),
      [0],
    );
  });
});

describe('layout', () => {
  test('many paragraphs continue on new pages, top to bottom, inside the margins', () => {
    const blocks: Block[] = Array.from({ length: 150 }, (_, i) => ({ text: `${i + 1}. ${LOREM}` }));
    const pages = layoutBlocks(blocks, { margin: 50 });
    assert.ok(pages.length >= 4, `${pages.length} pages`);
    for (const page of pages) {
      for (let i = 1; i < page.lines.length; i++) {
        assert.ok(page.lines[i]!.y < page.lines[i - 1]!.y, 'baselines go down');
      }
      for (const line of page.lines) {
        assert.ok(line.y >= 50 && line.y <= A4[1] - 50, `baseline ${line.y} inside the margins`);
        assert.ok(line.x + textWidth(line.bytes, line.font, line.size) <= A4[0] - 50 + 1e-9, 'inside the right margin');
      }
    }
  });

  test('explicit page breaks, spaceBefore and indents', () => {
    const pages = layoutBlocks([
      { text: 'one' },
      { pageBreak: true },
      { text: 'two', indent: 20 },
      { text: 'three', spaceBefore: 30 },
    ]);
    assert.equal(pages.length, 2);
    const [two, three] = pages[1]!.lines;
    assert.equal(two!.x, 56 + 20);
    assert.equal(two!.y - three!.y, 30 + 13);
  });

  test('bad options are refused; too many pages fail', () => {
    assert.throws(
      () => layoutBlocks([{ text: 'x' }], { pageSize: [10, 10] }),
      (e) => isMoharError(e, 'bad_request'),
    );
    assert.throws(
      () => layoutBlocks([{ text: 'x', size: Number.NaN }]),
      (e) => isMoharError(e, 'bad_request'),
    );
    const many: Block[] = Array.from({ length: 500 }, () => ({ text: LOREM }));
    assert.throws(
      () => layoutBlocks(many, { maxPages: 3 }),
      (e) => isMoharError(e, 'pdf_write_failed'),
    );
  });
});

describe('newTextDocument', () => {
  const blocks: Block[] = [
    { text: 'Certificate of Completion', font: 'Helvetica-Bold', size: 18 },
    { rule: true },
    { text: 'Signer: राम कुमार <ram@example.com>', spaceBefore: 6 },
    { text: 'Signer: Zoë Łódź-Müller', font: 'Helvetica-Bold' },
    { text: `SHA-256 ${'0123456789abcdef'.repeat(4)}`, font: 'Courier', size: 8 },
    ...Array.from({ length: 120 }, (_, i): Block => ({ text: `Event ${i + 1}: ${LOREM}`, indent: 12 })),
    { text: 'THE END' },
  ];
  const created = new Date('2024-05-01T09:00:00Z');
  const pdf = newTextDocument(blocks, {
    info: { title: 'Certificate of Completion (राम)', creator: 'Mohar tests' },
    creationDate: created,
    footer: (p, n) => `Page ${p} of ${n}`,
    attachments: [
      {
        name: 'audit-trail.json',
        data: Buffer.from('{"events":[]}'),
        mimeType: 'application/json',
        description: 'The audit trail',
      },
    ],
  });

  test('is a valid multi-page PDF (qpdf --check) that our reader opens', { skip }, () => {
    const check = qpdfCheck(pdf);
    assert.ok(check.ok, check.output);
    const pages = getPages(PdfReader.open(pdf));
    assert.equal(pages.length, layoutBlocks(blocks).length);
    assert.ok(pages.length > 3);
    assert.deepEqual([...pages[0]!.mediaBox], [0, 0, 595, 842]);
  });

  test('pdftotext finds the text, in order, with the transliterated Hindi name and the footers', { skip }, () => {
    const text = extract(pdf);
    assert.match(text, /Certificate of Completion/);
    assert.match(text, /Signer: Ram Kumar <ram@example.com>/);
    assert.match(text, /Signer: Zoë Lódz-Müller/);
    assert.match(text, /SHA-256 (0123456789abcdef){4}/);
    const pageCount = layoutBlocks(blocks).length;
    assert.match(text, new RegExp(`Page ${pageCount} of ${pageCount}`));
    assert.ok(text.indexOf('Event 1:') < text.indexOf('Event 120:'));
    assert.ok(text.indexOf('Event 120:') < text.indexOf('THE END'));
    const last = extract(newTextDocument([{ text: 'only' }], { creationDate: created }));
    assert.equal(last.trim(), 'only');
  });

  test('metadata and the attachment', { skip }, () => {
    const info = runOnFile('pdfinfo', [], pdf).stdout;
    assert.match(info, /Title:\s+Certificate of Completion \(राम\)/, 'the title keeps the exact text (UTF-16)');
    assert.match(info, /Producer:\s+Mohar/);
    const dir = mkdtempSync(join(tmpdir(), 'mohar-nd-'));
    try {
      writeFileSync(join(dir, 'in.pdf'), pdf);
      const r = spawnSync('pdfdetach', ['-saveall', '-o', dir, join(dir, 'in.pdf')], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      assert.equal(readFileSync(join(dir, 'audit-trail.json'), 'utf8'), '{"events":[]}');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test(
    'the same input and creation date give the same bytes; fonts are the standard ones, not embedded',
    { skip },
    () => {
      assert.deepEqual(
        newTextDocument(blocks, {
          info: { title: 'Certificate of Completion (राम)', creator: 'Mohar tests' },
          creationDate: created,
          footer: (p, n) => `Page ${p} of ${n}`,
          attachments: [
            {
              name: 'audit-trail.json',
              data: Buffer.from('{"events":[]}'),
              mimeType: 'application/json',
              description: 'The audit trail',
            },
          ],
        }),
        pdf,
      );
      const fonts = runOnFile('pdffonts', [], pdf).stdout;
      for (const font of ['Helvetica ', 'Helvetica-Bold', 'Courier']) {
        assert.match(fonts, new RegExp(`${font}\\s*Type 1\\s+WinAnsi\\s+no`));
      }
    },
  );

  test('an empty document still has one (blank) page', { skip }, () => {
    const empty = newTextDocument([]);
    assert.ok(qpdfCheck(empty).ok);
    assert.equal(getPages(PdfReader.open(empty)).length, 1);
  });
});
