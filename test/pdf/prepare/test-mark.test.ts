/** addTestMark: one revision, the mark on every page (upright on rotated and cropped pages), nothing else changed. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { addTestMark } from '../../../pdf/index.js';
import { TEST_MARK_TEXT } from '../../../pdf/prepare/test-mark.js';
import { PdfReader } from '../../../pdf/document.js';
import { PdfArray, PdfDict, PdfName } from '../../../pdf/objects.js';
import { getPages } from '../../../pdf/pages.js';
import { makePdf } from '../../support/pdf-fixtures.js';

const POPPLER = spawnSync('pdftotext', ['-v']).error === undefined;

function pdftotext(pdf: Uint8Array): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'mohar-mark-'));
  try {
    writeFileSync(join(dir, 'in.pdf'), pdf);
    const r = spawnSync('pdftotext', ['-layout', join(dir, 'in.pdf'), '-'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout.split('\f').slice(0, -1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('the mark is one appended revision: a locked, printable stamp with an appearance on every page', () => {
  const original = makePdf({
    pages: [
      { text: 'Page one' },
      { rotate: 90, text: 'Page two' },
      { cropBox: [50, 50, 400, 500], text: 'Page three' },
    ],
  });
  const marked = addTestMark(original);
  assert.ok(marked.subarray(0, original.length).equals(original), 'the original is an exact prefix');
  const reader = PdfReader.open(marked);
  for (const page of getPages(reader)) {
    const annots = reader.resolve(page.dict.get('Annots'));
    assert.ok(annots instanceof PdfArray);
    const stamps = annots.items
      .map((a) => reader.resolve(a))
      .filter(
        (a): a is PdfDict => a instanceof PdfDict && (reader.resolve(a.get('Subtype')) as PdfName).name === 'Stamp',
      );
    assert.equal(stamps.length, 1);
    const stamp = stamps[0]!;
    assert.equal(reader.resolve(stamp.get('F')), 4 | 128 | 512);
    assert.ok(reader.resolve(stamp.get('AP')) instanceof PdfDict);
    // Inside the visible page (the crop box).
    const rect = (reader.resolve(stamp.get('Rect')) as PdfArray).items as number[];
    const [x0, y0, x1, y1] = page.cropBox;
    assert.ok(
      rect[0]! >= x0 && rect[1]! >= y0 && rect[2]! <= x1 && rect[3]! <= y1,
      `inside the crop box: ${rect.join(' ')}`,
    );
  }
});

test(
  'text extraction finds the mark on every page, the page text unchanged',
  { skip: !POPPLER && 'poppler (pdftotext) not installed' },
  () => {
    const original = makePdf({
      pages: [
        { text: 'Page one' },
        { rotate: 90, text: 'Page two' },
        { cropBox: [50, 50, 400, 500], text: 'Page three' },
      ],
    });
    const pages = pdftotext(addTestMark(original));
    assert.equal(pages.length, 3);
    pages.forEach((text, i) => {
      assert.ok(text.includes(TEST_MARK_TEXT), `page ${i + 1}: ${text}`);
      assert.match(text, /Page (one|two|three)/);
    });
  },
);
