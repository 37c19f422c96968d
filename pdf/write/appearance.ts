/**
 * Appearance streams (ISO 32000-1 12.5.5): form XObjects that show a widget without the viewer
 * having to generate anything (no /NeedAppearances).
 *
 * Rotated pages: a widget's /Rect is in default user space, but a reader expects text upright as the
 * page is DISPLAYED. The appearance is drawn in "view" orientation, in a box of the displayed width
 * and height, and its /Matrix rotates it counter-clockwise by the page's /Rotate (plus a translation
 * so the transformed box starts at 0,0). The viewer fits the transformed box to /Rect (12.5.5,
 * algorithm 8.1), and the page rotation turns it upright again. /MK /R says the same to viewers that
 * regenerate appearances.
 */
import { PdfArray, PdfDict, PdfName, type PdfRef, type PdfStream } from '../objects.js';
import type { Rotation } from '../pages.js';
import { dict, formatLiteralString, formatNumber, makeStream, name } from './serialize.js';
import { helveticaTextWidth, toWinAnsi } from './text.js';

/** /Matrix of an appearance drawn in a `width` x `height` view box, for a page rotated by `rotation`. */
export function appearanceMatrix(rotation: Rotation, width: number, height: number): number[] {
  switch (rotation) {
    case 90:
      return [0, 1, -1, 0, height, 0];
    case 180:
      return [-1, 0, 0, -1, width, height];
    case 270:
      return [0, -1, 1, 0, 0, width];
    default:
      return [1, 0, 0, 1, 0, 0];
  }
}

/** Width and height of a user-space rectangle as displayed on a page with `rotation`. */
export function viewSize(
  userRect: readonly [number, number, number, number],
  rotation: Rotation,
): { width: number; height: number } {
  const w = Math.abs(userRect[2] - userRect[0]);
  const h = Math.abs(userRect[3] - userRect[1]);
  return rotation === 90 || rotation === 270 ? { width: h, height: w } : { width: w, height: h };
}

/** A form XObject for an appearance: /BBox [0 0 w h] in view orientation, rotated by /Matrix. */
export function formXObject(
  width: number,
  height: number,
  rotation: Rotation,
  content: string,
  resources?: PdfDict,
): PdfStream {
  const d = dict({
    Type: name('XObject'),
    Subtype: name('Form'),
    FormType: 1,
    BBox: new PdfArray([0, 0, round(width), round(height)]),
    Resources: resources ?? new PdfDict(),
  });
  if (rotation !== 0) d.set('Matrix', new PdfArray(appearanceMatrix(rotation, round(width), round(height))));
  return makeStream(d, Buffer.from(content, 'latin1'), { compress: content.length > 256 });
}

export function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

/** Standard 14 Helvetica with WinAnsiEncoding (not embedded: every viewer has it). */
export function helveticaFont(): PdfDict {
  return dict({
    Type: name('Font'),
    Subtype: name('Type1'),
    BaseFont: name('Helvetica'),
    Encoding: name('WinAnsiEncoding'),
  });
}

export function zapfDingbatsFont(): PdfDict {
  return dict({ Type: name('Font'), Subtype: name('Type1'), BaseFont: name('ZapfDingbats') });
}

/** A /Resources dictionary naming fonts (and optionally XObjects). */
export function resources(fonts: Record<string, PdfDict | PdfRef>, xobjects: Record<string, PdfRef> = {}): PdfDict {
  const r = new PdfDict();
  if (Object.keys(fonts).length > 0) {
    const f = new PdfDict();
    for (const [k, v] of Object.entries(fonts)) f.set(k, v);
    r.set('Font', f);
  }
  if (Object.keys(xobjects).length > 0) {
    const x = new PdfDict();
    for (const [k, v] of Object.entries(xobjects)) x.set(k, v);
    r.set('XObject', x);
  }
  r.set(
    'ProcSet',
    new PdfArray([new PdfName('PDF'), new PdfName('Text'), new PdfName('ImageB'), new PdfName('ImageC')]),
  );
  return r;
}

/** Content-stream text builder: numbers are formatted without exponents. */
export class Content {
  private readonly parts: string[] = [];

  op(...items: (number | string)[]): this {
    this.parts.push(items.map((i) => (typeof i === 'number' ? formatNumber(round(i)) : i)).join(' '));
    return this;
  }
  /** A WinAnsi text showing operator for `text` (converted for Helvetica). */
  showText(text: string): this {
    return this.op(formatLiteralString(toWinAnsi(text)), 'Tj');
  }
  gray(g: number, stroke = false): this {
    return this.op(g, stroke ? 'G' : 'g');
  }
  rect(x: number, y: number, w: number, h: number): this {
    return this.op(x, y, w, h, 're');
  }
  /** A circle approximated by four Bézier curves. */
  circle(cx: number, cy: number, r: number): this {
    const k = 0.5523 * r;
    this.op(cx + r, cy, 'm');
    this.op(cx + r, cy + k, cx + k, cy + r, cx, cy + r, 'c');
    this.op(cx - k, cy + r, cx - r, cy + k, cx - r, cy, 'c');
    this.op(cx - r, cy - k, cx - k, cy - r, cx, cy - r, 'c');
    this.op(cx + k, cy - r, cx + r, cy - k, cx + r, cy, 'c');
    return this;
  }
  raw(s: string): this {
    this.parts.push(s);
    return this;
  }
  toString(): string {
    return this.parts.join('\n') + '\n';
  }
}

/** Width of `text` in Helvetica at `size`, as it will be drawn (after WinAnsi conversion). */
export function textWidth(text: string, size: number): number {
  return helveticaTextWidth(toWinAnsi(text), size);
}

/** Cuts `text` with "..." so it fits `maxWidth` at `size`. */
export function truncateToWidth(text: string, size: number, maxWidth: number): string {
  if (textWidth(text, size) <= maxWidth) return text;
  const chars = [...text];
  while (chars.length > 0 && textWidth(chars.join('') + '...', size) > maxWidth) chars.pop();
  return chars.length > 0 ? chars.join('') + '...' : '';
}

/**
 * The largest font size (at most `maxSize`, at least `minSize`) at which the lines fit the box
 * (line height 1.15 x size). Lines that still do not fit at the minimum are truncated.
 */
export function fitLines(
  lines: readonly string[],
  width: number,
  height: number,
  maxSize: number,
  minSize = 4,
): { size: number; lines: string[] } {
  const n = Math.max(1, lines.length);
  let size = Math.min(maxSize, height / (n * 1.15));
  const widest = Math.max(0, ...lines.map((l) => textWidth(l, 1)));
  if (widest > 0) size = Math.min(size, width / widest);
  size = Math.max(minSize, Math.floor(size * 10) / 10);
  return { size, lines: lines.map((l) => truncateToWidth(l, size, width)) };
}

/** A single line of text, vertically centred in a field box, for text and choice fields. */
export function singleLineText(
  value: string,
  width: number,
  height: number,
  fontSize: number,
  fontName = 'Helv',
): string {
  const c = new Content();
  c.raw('/Tx BMC').raw('q');
  c.rect(1, 1, Math.max(0, width - 2), Math.max(0, height - 2)).op('W', 'n');
  if (value !== '') {
    const pad = 2;
    const text = truncateToWidth(value, fontSize, Math.max(0, width - 2 * pad));
    // Baseline so that the cap height (0.72 em for Helvetica) is centred.
    const y = Math.max(pad, (height - fontSize * 0.72) / 2);
    c.raw('BT').op(`/${fontName}`, fontSize, 'Tf').gray(0).op(pad, y, 'Td').showText(text).raw('ET');
  }
  c.raw('Q').raw('EMC');
  return c.toString();
}
