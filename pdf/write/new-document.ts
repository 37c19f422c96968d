/**
 * A fresh PDF from scratch (not an incremental update): pages of text lines, laid out top to bottom,
 * wrapped to the page width and continued on new pages as needed. For reports Mohar makes itself,
 * such as the certificate of completion.
 *
 * - Fonts are three of the standard 14 (Helvetica, Helvetica-Bold, Courier) in WinAnsiEncoding, not
 *   embedded. Text goes through `toWinAnsi`: Devanagari is transliterated ("राम कुमार" shows as
 *   "Ram Kumar"), other characters outside WinAnsi are approximated or shown as "?". Callers that
 *   need the exact text should also attach it (`attachments`, e.g. a JSON file).
 * - The file is PDF 1.7 with a classic xref table, one Flate-compressed content stream per page,
 *   an /Info dictionary and an /ID. The same input and `creationDate` give the same bytes.
 * - Attachments are embedded files listed in the catalog's /EmbeddedFiles name tree.
 */
import { createHash } from 'node:crypto';
import { MoharError } from '../../common/errors.js';
import { PdfArray, PdfDict, PdfRef, PdfString, type PdfObject } from '../objects.js';
import {
  ByteWriter,
  dict,
  formatLiteralString,
  formatNumber,
  makeStream,
  name,
  writeIndirectObject,
  writeObject,
} from './serialize.js';
import { helveticaWidth, pdfDate, textString, toWinAnsi } from './text.js';

export type StandardFont = 'Helvetica' | 'Helvetica-Bold' | 'Courier';

/** One paragraph: wrapped to the text width; "\n" starts a new line, an empty line leaves a blank one. */
export interface TextBlock {
  readonly text: string;
  /** Default Helvetica. */
  readonly font?: StandardFont;
  /** Points; default `NewDocumentOptions.fontSize`. */
  readonly size?: number;
  /** Points from the left margin (every line of the block, wrapped ones included). */
  readonly indent?: number;
  /** Extra space above the block, in points (ignored at the top of a page). */
  readonly spaceBefore?: number;
  /** Gray level 0 (black, default) to 1 (white). */
  readonly gray?: number;
}

/** A thin horizontal line across the text width. */
export interface RuleBlock {
  readonly rule: true;
  readonly spaceBefore?: number;
}

/** Continue on a new page. */
export interface PageBreakBlock {
  readonly pageBreak: true;
}

export type Block = TextBlock | RuleBlock | PageBreakBlock;

export interface Attachment {
  /** File name shown by viewers, e.g. "audit-trail.json". */
  readonly name: string;
  readonly data: Uint8Array;
  /** MIME type, e.g. "application/json". */
  readonly mimeType?: string;
  readonly description?: string;
}

export interface DocumentInfo {
  readonly title?: string;
  readonly author?: string;
  readonly subject?: string;
  readonly keywords?: string;
  readonly creator?: string;
}

export interface NewDocumentOptions {
  /** Width and height in points; default A4 (595 x 842). */
  readonly pageSize?: readonly [number, number];
  /** Margin on every side, in points; default 56 (about 2 cm). */
  readonly margin?: number;
  /** Default text size in points; default 10. */
  readonly fontSize?: number;
  /** Line height as a multiple of the font size; default 1.3. */
  readonly lineHeight?: number;
  readonly info?: DocumentInfo;
  /** /CreationDate and /ModDate; default now. Fix it for reproducible bytes. */
  readonly creationDate?: Date;
  /** A small line at the bottom of every page, e.g. (p, n) => `Page ${p} of ${n}`. */
  readonly footer?: (page: number, pageCount: number) => string;
  readonly attachments?: readonly Attachment[];
  /** Refuse to write more pages than this (default 10,000). */
  readonly maxPages?: number;
}

export const A4: readonly [number, number] = [595, 842];

/** A line placed on a page: WinAnsi bytes at (x, y) in PDF user space. */
export interface PlacedLine {
  readonly bytes: Uint8Array;
  readonly font: StandardFont;
  readonly size: number;
  readonly x: number;
  readonly y: number;
  readonly gray: number;
}

interface PlacedRule {
  readonly y: number;
}

interface PageLayout {
  readonly lines: PlacedLine[];
  readonly rules: PlacedRule[];
}

// Helvetica-Bold advance widths (AFM, 1/1000 em) for WinAnsi 0x20..0x7E.
// prettier-ignore
const HELVETICA_BOLD_ASCII = [
  278, 333, 474, 556, 556, 889, 722, 238, 333, 333, 389, 584, 278, 333, 278, 278, // space .. /
  556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 333, 333, 584, 584, 584, 611, // 0 .. ?
  975, 722, 722, 722, 722, 667, 611, 778, 722, 278, 556, 722, 611, 833, 722, 778, // @ .. O
  667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 333, 278, 333, 584, 556, // P .. _
  333, 556, 611, 556, 611, 556, 333, 611, 611, 278, 278, 556, 278, 889, 611, 611, // ` .. o
  611, 611, 389, 556, 333, 611, 556, 778, 556, 556, 500, 389, 280, 389, 584, // p .. ~
];

function glyphWidth(font: StandardFont, code: number): number {
  if (font === 'Courier') return 600;
  if (font === 'Helvetica') return helveticaWidth(code);
  let c = code;
  if (c >= 0xc0 && c <= 0xff) c = String.fromCharCode(c).normalize('NFD').charCodeAt(0);
  if (c >= 0x20 && c <= 0x7e) return HELVETICA_BOLD_ASCII[c - 0x20]!;
  return code === 0x97 ? 1000 : 611;
}

/** Width in points of WinAnsi bytes in one of the standard fonts. */
export function textWidth(bytes: Uint8Array, font: StandardFont, size: number): number {
  let w = 0;
  for (const b of bytes) w += glyphWidth(font, b);
  return (w * size) / 1000;
}

function invalid(message: string): MoharError {
  return new MoharError('bad_request', message);
}

function checkNumber(value: number, what: string, min: number, max: number): number {
  if (!Number.isFinite(value) || value < min || value > max) {
    throw invalid(`${what} must be a number from ${min} to ${max}; got ${value}.`);
  }
  return value;
}

/**
 * Wraps one line of text (no "\n") to `width` points: breaks at spaces, and inside a word only when
 * the word alone is wider than the line (long hashes, URLs). Returns WinAnsi bytes per line.
 */
export function wrapLine(text: string, font: StandardFont, size: number, width: number): Uint8Array[] {
  const bytes = toWinAnsi(text);
  const lines: Uint8Array[] = [];
  let start = 0;
  while (start < bytes.length) {
    let end = start;
    let used = 0;
    let lastSpace = -1;
    while (end < bytes.length) {
      const w = (glyphWidth(font, bytes[end]!) * size) / 1000;
      if (used + w > width && end > start) break;
      if (bytes[end] === 0x20) lastSpace = end;
      used += w;
      end++;
    }
    if (end < bytes.length && lastSpace > start) end = lastSpace; // break at the last space that fits
    let lineEnd = end;
    while (lineEnd > start && bytes[lineEnd - 1] === 0x20) lineEnd--; // no trailing spaces
    lines.push(bytes.subarray(start, lineEnd));
    start = end;
    while (start < bytes.length && bytes[start] === 0x20) start++; // nor leading ones on the next line
  }
  return lines.length > 0 ? lines : [new Uint8Array(0)];
}

interface Geometry {
  readonly width: number;
  readonly height: number;
  readonly margin: number;
  readonly fontSize: number;
  readonly lineHeight: number;
  readonly footer: boolean;
}

/** Places the blocks on pages (top to bottom); exported for tests and for callers that need the page count. */
export function layoutBlocks(blocks: readonly Block[], options: NewDocumentOptions = {}): PageLayout[] {
  return layout(blocks, geometry(options), options.maxPages ?? 10_000);
}

function geometry(options: NewDocumentOptions): Geometry {
  const [width, height] = options.pageSize ?? A4;
  checkNumber(width, 'The page width', 72, 14_400);
  checkNumber(height, 'The page height', 72, 14_400);
  const margin = checkNumber(options.margin ?? 56, 'The margin', 0, Math.min(width, height) / 2 - 18);
  return {
    width,
    height,
    margin,
    fontSize: checkNumber(options.fontSize ?? 10, 'The font size', 2, 200),
    lineHeight: checkNumber(options.lineHeight ?? 1.3, 'The line height', 0.8, 5),
    footer: options.footer !== undefined,
  };
}

const FOOTER_SIZE = 8;

function layout(blocks: readonly Block[], g: Geometry, maxPages: number): PageLayout[] {
  const pages: PageLayout[] = [];
  const top = g.height - g.margin;
  // The footer sits in the bottom margin when there is room, else it takes a line of the text area.
  const bottom = g.margin + (g.footer && g.margin < FOOTER_SIZE * 2.5 ? FOOTER_SIZE * 2 : 0);
  let page: PageLayout | undefined;
  let y = top; // baseline of the last line placed (top of the text area on an empty page)
  const newPage = (): PageLayout => {
    if (pages.length >= maxPages) {
      throw new MoharError('pdf_write_failed', `Could not write the PDF: it would have more than ${maxPages} pages.`);
    }
    page = { lines: [], rules: [] };
    pages.push(page);
    y = top;
    return page;
  };
  const current = (): PageLayout => page ?? newPage();
  const atTop = (): boolean => page === undefined || (page.lines.length === 0 && page.rules.length === 0);

  for (const block of blocks) {
    if ('pageBreak' in block) {
      newPage();
      continue;
    }
    if ('rule' in block) {
      const gap = atTop() ? 0 : (block.spaceBefore ?? g.fontSize * 0.5);
      if (y - gap - 2 < bottom) newPage();
      else y -= gap;
      const p = current();
      y -= 2;
      p.rules.push({ y: y + 1 });
      y -= g.fontSize * 0.3;
      continue;
    }
    const font = block.font ?? 'Helvetica';
    const size = checkNumber(block.size ?? g.fontSize, 'The font size', 2, 200);
    const indent = checkNumber(block.indent ?? 0, 'The indent', 0, g.width - 2 * g.margin - size);
    const gray = checkNumber(block.gray ?? 0, 'The gray level', 0, 1);
    const step = size * g.lineHeight;
    const available = g.width - 2 * g.margin - indent;
    let first = true;
    for (const paragraph of block.text.split(/\r\n|\r|\n/)) {
      for (const bytes of wrapLine(paragraph, font, size, available)) {
        const gap = first && !atTop() ? (block.spaceBefore ?? 0) : 0;
        first = false;
        // The first line of a page sits one ascent (about 0.8 em) below the top of the text area.
        let baseline = atTop() ? top - size * 0.8 : y - gap - step;
        if (baseline < bottom) {
          newPage();
          baseline = top - size * 0.8;
        }
        current().lines.push({ bytes, font, size, x: g.margin + indent, y: baseline, gray });
        y = baseline;
      }
    }
  }
  if (pages.length === 0) newPage();
  return pages;
}

const FONT_KEYS: Record<StandardFont, string> = { Helvetica: 'F1', 'Helvetica-Bold': 'F2', Courier: 'F3' };

function contentStream(p: PageLayout, g: Geometry, footer: string | undefined): Buffer {
  const ops: string[] = [];
  if (p.rules.length > 0) {
    ops.push('q 0.6 G 0.5 w');
    for (const r of p.rules) {
      ops.push(
        `${formatNumber(g.margin)} ${formatNumber(r.y)} m ${formatNumber(g.width - g.margin)} ${formatNumber(r.y)} l S`,
      );
    }
    ops.push('Q');
  }
  if (p.lines.length > 0 || footer !== undefined) ops.push('BT');
  let font = '';
  let gray = 0;
  for (const line of p.lines) {
    const key = `/${FONT_KEYS[line.font]} ${formatNumber(line.size)} Tf`;
    if (key !== font) ops.push((font = key));
    if (line.gray !== gray) ops.push(`${formatNumber((gray = line.gray))} g`);
    if (line.bytes.length > 0) {
      ops.push(`1 0 0 1 ${formatNumber(line.x)} ${formatNumber(line.y)} Tm ${formatLiteralString(line.bytes)} Tj`);
    }
  }
  if (footer !== undefined) {
    const bytes = toWinAnsi(footer);
    const y = Math.max(g.margin / 2 - FOOTER_SIZE / 2, 4);
    ops.push(
      `/F1 ${FOOTER_SIZE} Tf 0.4 g 1 0 0 1 ${formatNumber(g.margin)} ${formatNumber(y)} Tm ${formatLiteralString(bytes)} Tj`,
    );
  }
  if (p.lines.length > 0 || footer !== undefined) ops.push('ET');
  return Buffer.from(ops.join('\n') + '\n', 'latin1');
}

/** Writes a new PDF with the blocks laid out on as many pages as they need. */
export function newTextDocument(blocks: readonly Block[], options: NewDocumentOptions = {}): Buffer {
  const g = geometry(options);
  const pages = layout(blocks, g, options.maxPages ?? 10_000);
  const created = options.creationDate ?? new Date();
  if (Number.isNaN(created.getTime())) throw invalid('creationDate must be a valid Date.');

  const objects: PdfObject[] = []; // objects[i] is object number i + 1
  const add = (value: PdfObject): PdfRef => {
    objects.push(value);
    return new PdfRef(objects.length, 0);
  };
  const reserve = (): PdfRef => add(null);
  const set = (ref: PdfRef, value: PdfObject): void => {
    objects[ref.num - 1] = value;
  };

  const catalogRef = reserve();
  const pagesRef = reserve();

  const usedFonts = new Set<StandardFont>();
  for (const p of pages) for (const l of p.lines) usedFonts.add(l.font);
  if (options.footer) usedFonts.add('Helvetica');
  const fonts = new PdfDict();
  for (const font of (['Helvetica', 'Helvetica-Bold', 'Courier'] as const).filter((f) => usedFonts.has(f))) {
    fonts.set(
      FONT_KEYS[font],
      add(
        dict({ Type: name('Font'), Subtype: name('Type1'), BaseFont: name(font), Encoding: name('WinAnsiEncoding') }),
      ),
    );
  }
  const resources = add(dict({ Font: fonts, ProcSet: new PdfArray([name('PDF'), name('Text')]) }));

  const kids: PdfRef[] = [];
  pages.forEach((p, i) => {
    const footer = options.footer?.(i + 1, pages.length);
    const contents = add(makeStream(new PdfDict(), contentStream(p, g, footer), { compress: true }));
    kids.push(
      add(
        dict({
          Type: name('Page'),
          Parent: pagesRef,
          MediaBox: new PdfArray([0, 0, g.width, g.height]),
          Resources: resources,
          Contents: contents,
        }),
      ),
    );
  });
  set(pagesRef, dict({ Type: name('Pages'), Kids: new PdfArray(kids), Count: kids.length }));

  let names: PdfDict | undefined;
  if (options.attachments && options.attachments.length > 0) {
    const entries: PdfObject[] = [];
    const sorted = [...options.attachments].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const a of sorted) {
      if (a.name.trim() === '') throw invalid('An attachment needs a file name.');
      const streamDict = dict({
        Type: name('EmbeddedFile'),
        Subtype: a.mimeType ? name(a.mimeType) : undefined,
        Params: dict({ Size: a.data.length, ModDate: textString(pdfDate(created)) }),
      });
      const file = add(makeStream(streamDict, a.data, { compress: true }));
      const spec = add(
        dict({
          Type: name('Filespec'),
          F: textString(toAsciiName(a.name)),
          UF: textString(a.name),
          Desc: a.description === undefined ? undefined : textString(a.description),
          EF: dict({ F: file, UF: file }),
        }),
      );
      entries.push(textString(a.name), spec);
    }
    names = dict({ EmbeddedFiles: add(dict({ Names: new PdfArray(entries) })) });
  }
  set(
    catalogRef,
    dict({
      Type: name('Catalog'),
      Pages: pagesRef,
      Names: names,
      PageMode: names ? name('UseAttachments') : undefined,
      ViewerPreferences: options.info?.title ? dict({ DisplayDocTitle: true }) : undefined,
    }),
  );

  const info = options.info ?? {};
  const infoRef = add(
    dict({
      Title: info.title === undefined ? undefined : textString(info.title),
      Author: info.author === undefined ? undefined : textString(info.author),
      Subject: info.subject === undefined ? undefined : textString(info.subject),
      Keywords: info.keywords === undefined ? undefined : textString(info.keywords),
      Creator: info.creator === undefined ? undefined : textString(info.creator),
      Producer: textString('Mohar'),
      CreationDate: textString(pdfDate(created)),
      ModDate: textString(pdfDate(created)),
    }),
  );

  const w = new ByteWriter();
  w.text('%PDF-1.7\n').bytes(Buffer.from([0x25, 0xe2, 0xe3, 0xcf, 0xd3, 0x0a]));
  const offsets: number[] = [];
  objects.forEach((value, i) => {
    offsets.push(w.length);
    writeIndirectObject(w, i + 1, 0, value);
  });
  const body = w.toBytes();
  // /ID: both halves from the content, so identical input gives identical bytes (14.4).
  const id = new PdfString(createHash('sha256').update(body).digest().subarray(0, 16), true);
  const xref = w.length;
  w.text(`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`);
  for (const offset of offsets) w.text(`${String(offset).padStart(10, '0')} 00000 n \n`);
  w.text('trailer\n');
  const trailer = dict({ Size: objects.length + 1, Root: catalogRef, Info: infoRef, ID: new PdfArray([id, id]) });
  writeObject(w, trailer);
  w.text(`\nstartxref\n${xref}\n%%EOF\n`);
  return w.toBytes();
}

/** /F of a file specification: a portable ASCII name (the exact one is in /UF). */
function toAsciiName(fileName: string): string {
  return Buffer.from(toWinAnsi(fileName))
    .toString('latin1')
    .replace(/[^\x20-\x7e]/g, '_');
}
