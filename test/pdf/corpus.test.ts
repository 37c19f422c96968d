/**
 * Real-world files: every PDF found under /usr/share and PDFs written by other producers
 * (ghostscript, cairo, poppler's pdfunite/pdfseparate, qpdf rewrites). Where qpdf --check finds no
 * errors (warnings allowed), inspectPdf must succeed, agree with qpdf on the page count and with poppler's pdfinfo
 * on every page's MediaBox, CropBox and rotation. Tools or files that are missing are skipped.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspectPdf } from '../../pdf/index.js';
import { MoharError } from '../../common/errors.js';
import {
  ghostscriptPdf,
  hasTool,
  linearize,
  makePdf,
  pdfinfoPages,
  qpdf,
  qpdfCheck,
  qpdfPageCount,
  withObjectStreams,
} from '../support/pdf-fixtures.js';

const HAVE_QPDF = hasTool('qpdf');
const HAVE_PDFINFO = hasTool('pdfinfo');
const HAVE_GS = hasTool('gs');
const HAVE_POPPLER_WRITERS = hasTool('pdftocairo') && hasTool('pdfunite');

/** Asserts inspectPdf agrees with qpdf and poppler on a file qpdf accepts. */
function agreesWithReferenceTools(pdf: Buffer, label: string): void {
  const check = qpdfCheck(pdf);
  if (!check.readable) {
    // qpdf found errors: we may refuse too, but only with a typed error.
    try {
      inspectPdf(pdf);
    } catch (e) {
      assert.ok(e instanceof MoharError, `${label}: ${String(e)}`);
    }
    return;
  }
  const info = inspectPdf(pdf);
  assert.equal(info.pageCount, qpdfPageCount(pdf), `${label}: page count`);
  if (!HAVE_PDFINFO) return;
  const n = Math.min(info.pageCount, 30);
  const theirs = pdfinfoPages(pdf, n);
  const close = (a: readonly number[], b: readonly number[]): boolean => a.every((v, i) => Math.abs(v - b[i]!) < 0.01);
  for (let i = 0; i < n; i++) {
    const ours = info.pages[i]!;
    assert.ok(
      close(ours.mediaBox, theirs[i]!.mediaBox),
      `${label} page ${i + 1} MediaBox ${ours.mediaBox} vs ${theirs[i]!.mediaBox}`,
    );
    assert.ok(
      close(ours.cropBox, theirs[i]!.cropBox),
      `${label} page ${i + 1} CropBox ${ours.cropBox} vs ${theirs[i]!.cropBox}`,
    );
    assert.equal(ours.rotate, theirs[i]!.rotate, `${label} page ${i + 1} rotation`);
  }
}

describe('PDFs found under /usr/share', { skip: !HAVE_QPDF && 'qpdf not installed' }, () => {
  const found = spawnSync('find', ['/usr/share', '-name', '*.pdf', '-type', 'f'], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter(Boolean)
    .sort()
    .slice(0, 40);
  if (found.length === 0) test('no PDFs under /usr/share', { skip: 'none found' }, () => {});
  for (const file of found) {
    test(file, () => agreesWithReferenceTools(readFileSync(file), file));
  }
});

const PS_SIZES = `%!PS
/Helvetica findfont 18 scalefont setfont
<< /PageSize [595 842] >> setpagedevice 72 700 moveto (A4 portrait) show showpage
<< /PageSize [842 595] >> setpagedevice 72 500 moveto (A4 landscape) show showpage
<< /PageSize [612 792] >> setpagedevice 72 700 moveto (Letter) show showpage
<< /PageSize [200.5 300.25] >> setpagedevice 20 150 moveto (Odd size) show showpage
`;
// Text running up, down and upside down: ghostscript's auto-rotation writes /Rotate 90, 270, 180.
const PS_ROTATED = `%!PS
/Helvetica findfont 18 scalefont setfont
<< /PageSize [595 842] >> setpagedevice
gsave 300 100 translate 90 rotate 0 0 moveto (Rotated text running up the page, long enough to count) show grestore showpage
gsave 300 700 translate -90 rotate 0 0 moveto (Rotated text running down the page, long enough to count) show grestore showpage
gsave 400 700 translate 180 rotate 0 0 moveto (Upside-down text, long enough to count for autorotation) show grestore showpage
72 700 moveto (Normal page) show showpage
`;
const PS_MANY = `%!PS
/Helvetica findfont 12 scalefont setfont
1 1 60 { /n exch def 72 700 moveto (Page ) show n 10 string cvs show showpage } for
`;

describe('PDFs written by ghostscript', { skip: (!HAVE_GS || !HAVE_QPDF) && 'gs or qpdf not installed' }, () => {
  const variants: [string, string, string[]][] = [
    ['sizes', PS_SIZES, []],
    ['sizes, PDF 1.3', PS_SIZES, ['-dCompatibilityLevel=1.3']],
    ['sizes, PDF 2.0', PS_SIZES, ['-dCompatibilityLevel=2.0']],
    ['rotated pages', PS_ROTATED, []],
    ['rotated pages, linearized by gs', PS_ROTATED, ['-dFastWebView=true']],
    ['60 pages', PS_MANY, []],
  ];
  for (const [name, ps, args] of variants) {
    test(name, () => {
      const pdf = ghostscriptPdf(ps, args);
      agreesWithReferenceTools(pdf, name);
      if (name === 'rotated pages') {
        assert.deepEqual(
          inspectPdf(pdf).pages.map((p) => p.rotate),
          [90, 270, 180, 0],
        );
      }
    });
    test(`${name}, rewritten by qpdf (object streams, linearized, QDF)`, () => {
      const pdf = ghostscriptPdf(ps, args);
      agreesWithReferenceTools(withObjectStreams(pdf), `${name} object streams`);
      agreesWithReferenceTools(linearize(withObjectStreams(pdf)), `${name} linearized object streams`);
      agreesWithReferenceTools(qpdf(pdf, ['--qdf', '--object-streams=disable']), `${name} qdf`);
    });
  }
});

describe(
  'PDFs written by cairo and poppler',
  { skip: (!HAVE_GS || !HAVE_POPPLER_WRITERS || !HAVE_QPDF) && 'tools not installed' },
  () => {
    test('pdftocairo, pdfunite and pdfseparate outputs', () => {
      const dir = mkdtempSync(join(tmpdir(), 'mohar-corpus-'));
      try {
        writeFileSync(join(dir, 'a.pdf'), ghostscriptPdf(PS_ROTATED));
        writeFileSync(
          join(dir, 'b.pdf'),
          makePdf({ pages: [{ rotate: 90, cropBox: [10, 10, 500, 700] }, { mediaBox: [0, 0, 300, 400] }] }),
        );
        spawnSync('pdftocairo', ['-pdf', join(dir, 'a.pdf'), join(dir, 'cairo.pdf')]);
        spawnSync('pdfunite', [join(dir, 'a.pdf'), join(dir, 'b.pdf'), join(dir, 'unite.pdf')]);
        spawnSync('pdfseparate', ['-f', '2', '-l', '3', join(dir, 'unite.pdf'), join(dir, 'sep-%d.pdf')]);
        const outputs = readdirSync(dir).filter((f) => !['a.pdf', 'b.pdf'].includes(f));
        assert.ok(outputs.length >= 4, `made ${outputs.join(', ')}`);
        for (const f of outputs) agreesWithReferenceTools(readFileSync(join(dir, f)), f);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  },
);
