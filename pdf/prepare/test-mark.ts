/**
 * addTestMark: a visible "TEST – no legal effect" band across the top of every page, in ONE incremental
 * revision: one locked, printable /Stamp annotation per page with its own appearance stream (Helvetica,
 * WinAnsi), drawn upright on rotated pages like a form widget.
 *
 * Mohar stamps test documents (made with a qsk_test_ key) with it at send, in the revision after the form
 * fields and before the certification, so the certification and every later signature cover the mark and a
 * later removal shows as a change. An annotation rather than page content: the pages' own content streams
 * and resources stay untouched, and text extraction (pdftotext) and printing show it.
 */
import { MoharError } from '../../common/errors.js';
import { viewRectToUserSpace } from '../geometry.js';
import { PdfArray } from '../objects.js';
import { PdfReader } from '../document.js';
import { getPages, type PageInfo } from '../pages.js';
import { Content, formXObject, helveticaFont, resources, round, textWidth, viewSize } from '../write/appearance.js';
import { addAnnotation } from '../write/form.js';
import { IncrementalUpdate, assertPrefix } from '../write/incremental.js';
import { dict, name } from '../write/serialize.js';
import { textString } from '../write/text.js';

export const TEST_MARK_TEXT = 'TEST – no legal effect';

/** Annotation flags: Print (4), Locked (128), LockedContents (512). */
const FLAGS = 4 | 128 | 512;
const BAND_HEIGHT = 18;
const FONT_SIZE = 11;
const MARGIN = 4;

function bandAppearance(width: number, height: number, page: PageInfo, text: string) {
  const c = new Content();
  c.raw('q').op(1, 0.92, 0.92, 'rg').op(0.8, 0, 0, 'RG').op(0.8, 'w');
  c.rect(0.4, 0.4, Math.max(0, width - 0.8), Math.max(0, height - 0.8)).op('B');
  const size = Math.min(FONT_SIZE, (height - 4) / 0.9);
  const x = Math.max(2, (width - textWidth(text, size)) / 2);
  c.raw('BT')
    .op('/Helv', size, 'Tf')
    .op(0.7, 0, 0, 'rg')
    .op(x, (height - size * 0.72) / 2, 'Td')
    .showText(text)
    .raw('ET')
    .raw('Q');
  return formXObject(width, height, page.rotate, c.toString(), resources({ Helv: helveticaFont() }));
}

/** The PDF with the mark on every page, as one more revision (the input is an exact prefix of the result). */
export function addTestMark(bytes: Uint8Array, text: string = TEST_MARK_TEXT): Buffer {
  const reader = PdfReader.open(bytes);
  const update = new IncrementalUpdate(reader);
  for (const page of getPages(reader)) {
    if (!page.ref) {
      throw new MoharError(
        'pdf_unsupported',
        'A page is written inside the page tree instead of as an object of its own; it cannot take the test mark.',
      );
    }
    const crop = page.cropBox;
    const view =
      page.rotate === 90 || page.rotate === 270
        ? { width: crop[3] - crop[1], height: crop[2] - crop[0] }
        : { width: crop[2] - crop[0], height: crop[3] - crop[1] };
    const rect = viewRectToUserSpace(page, {
      x: MARGIN,
      y: MARGIN,
      width: Math.max(1, view.width - 2 * MARGIN),
      height: Math.min(BAND_HEIGHT, Math.max(1, view.height - 2 * MARGIN)),
    });
    const size = viewSize(rect, page.rotate);
    const appearance = update.add(bandAppearance(size.width, size.height, page, text));
    const annot = update.add(
      dict({
        Type: name('Annot'),
        Subtype: name('Stamp'),
        Name: name('Mohar-Test'),
        Rect: new PdfArray(rect.map(round)),
        Contents: textString(text),
        NM: textString(`mohar-test-mark-${page.index + 1}`),
        F: FLAGS,
        P: page.ref,
        AP: dict({ N: appearance }),
      }),
    );
    addAnnotation(update, page.ref, annot);
  }
  const result = update.write().bytes;
  assertPrefix(bytes, result);
  return result;
}
