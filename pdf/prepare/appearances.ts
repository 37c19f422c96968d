/**
 * Appearance streams of form fields, so that every viewer shows them without /NeedAppearances:
 * text and choice fields (value in Helvetica), check boxes and radio buttons (drawn with paths, no
 * ZapfDingbats needed), and an empty signature box. All drawn in view orientation and turned by
 * /Matrix on rotated pages (pdf/write/appearance.ts). Frames are light grey, text black.
 */
import type { PdfDict, PdfRef, PdfStream } from '../objects.js';
import type { Rotation } from '../pages.js';
import {
  Content,
  fitLines,
  formXObject,
  resources,
  round,
  singleLineText,
  textWidth,
  truncateToWidth,
} from '../write/appearance.js';

/** Grey of field frames: light enough not to compete with the document. */
const FRAME_GRAY = 0.6;

export interface Box {
  readonly width: number;
  readonly height: number;
  readonly rotation: Rotation;
}

/** Font size for "auto" (/DA size 0): from the height, shrunk to the width for a single line. */
export function autoFontSize(value: string, box: Box, max = 12): number {
  let size = Math.min(max, Math.max(4, (box.height - 4) * 0.7));
  const w = textWidth(value, size);
  if (value && w > box.width - 4) size = Math.max(4, (size * (box.width - 4)) / w);
  return Math.floor(size * 10) / 10;
}

function frame(c: Content, w: number, h: number): void {
  c.op(0.75, 'w')
    .gray(FRAME_GRAY, true)
    .rect(0.375, 0.375, Math.max(0, w - 0.75), Math.max(0, h - 0.75))
    .op('S');
}

/** A text (or combo box) field showing `value`. `fontSize` 0 = auto. Multiline wraps words. */
export function textFieldAppearance(
  value: string,
  box: Box,
  font: PdfDict | PdfRef,
  opts: { fontSize?: number; multiline?: boolean } = {},
): PdfStream {
  const { width, height, rotation } = box;
  const res = resources({ Helv: font });
  if (opts.multiline && value !== '') {
    const size = opts.fontSize && opts.fontSize > 0 ? opts.fontSize : 10;
    const lines = wrap(value, size, width - 4);
    const fit = fitLines(lines, width - 4, height - 4, size);
    const c = new Content().raw('/Tx BMC').raw('q');
    frame(c, width, height);
    c.rect(1, 1, width - 2, height - 2).op('W', 'n');
    c.raw('BT')
      .op('/Helv', fit.size, 'Tf')
      .gray(0)
      .op(fit.size * 1.15, 'TL')
      .op(2, height - 2 - fit.size * 0.8, 'Td');
    fit.lines.forEach((l, i) => {
      if (i > 0) c.raw('T*');
      c.showText(l);
    });
    c.raw('ET').raw('Q').raw('EMC');
    return formXObject(width, height, rotation, c.toString(), res);
  }
  const size = opts.fontSize && opts.fontSize > 0 ? opts.fontSize : autoFontSize(value, box);
  const framed = new Content();
  frame(framed, width, height);
  return formXObject(width, height, rotation, framed.toString() + singleLineText(value, width, height, size), res);
}

function wrap(text: string, size: number, width: number): string[] {
  const out: string[] = [];
  for (const para of text.split(/\r\n|\r|\n/)) {
    let line = '';
    for (const word of para.split(/\s+/)) {
      const candidate = line ? `${line} ${word}` : word;
      if (line && textWidth(candidate, size) > width) {
        out.push(line);
        line = word;
      } else line = candidate;
    }
    out.push(line);
  }
  return out;
}

/** On and off appearances of a check box: a light frame, and a check mark when on. */
export function checkboxAppearances(box: Box): { on: PdfStream; off: PdfStream } {
  const { width, height, rotation } = box;
  const s = Math.min(width, height);
  const x = (width - s) / 2;
  const y = (height - s) / 2;
  const off = new Content();
  off.raw('q');
  off
    .op(0.75, 'w')
    .gray(FRAME_GRAY, true)
    .rect(x + 0.375, y + 0.375, s - 0.75, s - 0.75)
    .op('S');
  off.raw('Q');
  const on = new Content();
  on.raw(off.toString().trim());
  on.raw('q')
    .op(Math.max(1, s * 0.12), 'w')
    .op(1, 'J')
    .op(1, 'j')
    .gray(0, true);
  on.op(x + s * 0.2, y + s * 0.52, 'm')
    .op(x + s * 0.42, y + s * 0.26, 'l')
    .op(x + s * 0.8, y + s * 0.78, 'l')
    .op('S');
  on.raw('Q');
  return {
    on: formXObject(width, height, rotation, on.toString()),
    off: formXObject(width, height, rotation, off.toString()),
  };
}

/** On and off appearances of one radio button: a circle, filled dot when on, and its label. */
export function radioAppearances(label: string, box: Box, font: PdfDict | PdfRef): { on: PdfStream; off: PdfStream } {
  const { width, height, rotation } = box;
  const d = Math.min(height, width, 14) * 0.8;
  const r = d / 2;
  const cx = 1 + r;
  const cy = height / 2;
  const labelX = cx + r + 3;
  const labelW = Math.max(0, width - labelX - 1);
  const size = Math.min(10, Math.max(4, height * 0.7));
  const text = truncateToWidth(label, size, labelW);
  const base = (): Content => {
    const c = new Content().raw('q');
    c.op(0.75, 'w')
      .gray(FRAME_GRAY, true)
      .circle(cx, cy, r - 0.375)
      .op('S');
    if (text) {
      c.raw('BT')
        .op('/Helv', size, 'Tf')
        .gray(0)
        .op(round(labelX), round(cy - size * 0.36), 'Td')
        .showText(text)
        .raw('ET');
    }
    return c;
  };
  const off = base().raw('Q');
  const on = base()
    .gray(0)
    .circle(cx, cy, r * 0.5)
    .op('f')
    .raw('Q');
  const res = resources({ Helv: font });
  return {
    on: formXObject(width, height, rotation, on.toString(), res),
    off: formXObject(width, height, rotation, off.toString(), res),
  };
}

/** An empty signature field: a light frame and, when given, a grey label. */
export function signatureFieldAppearance(label: string | undefined, box: Box, font: PdfDict | PdfRef): PdfStream {
  const { width, height, rotation } = box;
  const c = new Content().raw('q');
  frame(c, width, height);
  if (label) {
    const size = Math.min(10, Math.max(4, height * 0.4));
    const text = truncateToWidth(label, size, width - 4);
    c.raw('BT')
      .op('/Helv', size, 'Tf')
      .gray(FRAME_GRAY)
      .op(2, 2 + size * 0.25, 'Td')
      .showText(text)
      .raw('ET');
  }
  c.raw('Q');
  return formXObject(width, height, rotation, c.toString(), resources({ Helv: font }));
}

/**
 * A field that shows a picture instead of its text (a signer's drawn initials): the image, fitted inside a
 * small margin and centred, no frame. `image` is the XObject, written once and shared by every widget.
 */
export function imageFieldAppearance(box: Box, image: PdfRef, size: { width: number; height: number }): PdfStream {
  const { width, height, rotation } = box;
  const pad = Math.min(2, width / 10, height / 10);
  const scale = Math.min((width - 2 * pad) / size.width, (height - 2 * pad) / size.height);
  const w = size.width * scale;
  const h = size.height * scale;
  const content = `q ${round(w)} 0 0 ${round(h)} ${round((width - w) / 2)} ${round((height - h) / 2)} cm /Img0 Do Q`;
  return formXObject(width, height, rotation, content, resources({}, { Img0: image }));
}
