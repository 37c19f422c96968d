/**
 * The visible appearance of a signature widget: text lines (signer, date, reason, location) in
 * Helvetica, optionally a picture (PNG/JPEG) on the left, upright on rotated pages (see
 * pdf/write/appearance.ts). Non-Latin text is shown transliterated or as "?" (pdf/write/text.ts);
 * the signature dictionary keeps the exact text.
 */
import { PdfArray, PdfDict, type PdfRef } from '../objects.js';
import type { Rotation } from '../pages.js';
import { Content, fitLines, formXObject, helveticaFont, resources, round } from '../write/appearance.js';
import { imageXObject } from '../write/image.js';
import type { IncrementalUpdate } from '../write/incremental.js';
import { displayDate } from '../write/text.js';

export interface SignatureAppearance {
  /** Text lines to show instead of the default ones (signer, date, reason, location). */
  readonly lines?: readonly string[];
  /** A PNG or JPEG picture (handwritten signature, stamp), drawn on the left part of the box. */
  readonly image?: Uint8Array;
  /** Show text beside the image (default true; without an image text is always shown). */
  readonly showText?: boolean;
  /** Largest font size in points (default 10); smaller when the text does not fit. */
  readonly fontSize?: number;
  /** A thin border around the box (default false). */
  readonly border?: boolean;
}

export interface AppearanceFacts {
  readonly name?: string;
  readonly reason?: string;
  readonly location?: string;
  readonly signingTime: Date;
  readonly timeZoneOffsetMinutes?: number;
}

export function defaultSignatureLines(facts: AppearanceFacts): string[] {
  const lines = [
    `Digitally signed by ${facts.name ?? 'an unnamed signer'}`,
    `Date: ${displayDate(facts.signingTime, facts.timeZoneOffsetMinutes ?? 0)}`,
  ];
  if (facts.reason) lines.push(`Reason: ${facts.reason}`);
  if (facts.location) lines.push(`Location: ${facts.location}`);
  return lines;
}

/** Adds the appearance stream (and its font and images) to the update; returns its reference. */
export function addSignatureAppearance(
  update: IncrementalUpdate,
  box: { width: number; height: number; rotation: Rotation },
  appearance: SignatureAppearance,
  facts: AppearanceFacts,
): PdfRef {
  const { width, height, rotation } = box;
  const pad = Math.min(2, width / 10, height / 10);
  const c = new Content();
  const xobjects: Record<string, PdfRef> = {};
  c.raw('q');
  if (appearance.border) {
    c.op(0.5, 'w')
      .gray(0, true)
      .rect(0.25, 0.25, width - 0.5, height - 0.5)
      .op('S');
  }

  let textX = pad;
  const showText = appearance.showText !== false || !appearance.image;
  if (appearance.image) {
    const img = imageXObject(appearance.image);
    if (img.smask) img.image.dict.set('SMask', update.add(img.smask));
    xobjects.Img0 = update.add(img.image);
    const areaW = showText ? (width - 2 * pad) * 0.4 : width - 2 * pad;
    const areaH = height - 2 * pad;
    const scale = Math.min(areaW / img.width, areaH / img.height);
    const w = img.width * scale;
    const h = img.height * scale;
    const x = showText ? pad : pad + (areaW - w) / 2;
    const y = pad + (areaH - h) / 2;
    c.raw('q').op(round(w), 0, 0, round(h), round(x), round(y), 'cm').raw('/Img0 Do').raw('Q');
    textX = pad + areaW + pad;
  }

  const fonts: Record<string, PdfDict | PdfRef> = {};
  if (showText) {
    fonts.F1 = update.add(helveticaFont());
    const lines = appearance.lines ?? defaultSignatureLines(facts);
    const textW = Math.max(1, width - textX - pad);
    const fit = fitLines(lines, textW, height - 2 * pad, appearance.fontSize ?? 10);
    const leading = fit.size * 1.15;
    const blockH = leading * fit.lines.length;
    // Centre the block vertically; the first baseline sits one ascent (0.77 em) below its top.
    const top = height - pad - Math.max(0, (height - 2 * pad - blockH) / 2);
    c.raw('BT')
      .op('/F1', fit.size, 'Tf')
      .gray(0)
      .op(leading, 'TL')
      .op(textX, top - fit.size * 0.77, 'Td');
    fit.lines.forEach((line, i) => {
      if (i > 0) c.raw('T*');
      c.showText(line);
    });
    c.raw('ET');
  }
  c.raw('Q');
  return update.add(formXObject(width, height, rotation, c.toString(), resources(fonts, xobjects)));
}

/** The empty appearance of an invisible signature (PDF/A wants every widget to have one). */
export function addEmptyAppearance(update: IncrementalUpdate): PdfRef {
  const ap = formXObject(0, 0, 0, '');
  ap.dict.set('BBox', new PdfArray([0, 0, 0, 0]));
  return update.add(ap);
}
