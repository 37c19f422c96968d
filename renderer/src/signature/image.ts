/**
 * Signature pictures as PNG: cropped drawings, typed text rendered in the handwriting font (Kalam, shipped with
 * the page: Latin and Devanagari), and uploaded images redrawn (which also drops anything but pixels).
 */
import type { AdoptedSignature, SignatureKind } from '../types';

export const SIGNATURE_FONT = 'Kalam';
const MAX_WIDTH = 900;
const MAX_HEIGHT = 300;
export const MAX_UPLOAD_BYTES = 5 * 1024 * 1024;

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

function adopted(kind: SignatureKind, canvas: HTMLCanvasElement, text?: string): AdoptedSignature {
  const dataUrl = canvas.toDataURL('image/png');
  return { kind, dataUrl, imagePng: dataUrl.slice(dataUrl.indexOf(',') + 1), ...(text === undefined ? {} : { text }) };
}

/** The box of non-transparent pixels, or null for an empty canvas. */
export function inkBounds(canvas: HTMLCanvasElement): Box | null {
  const ctx = canvas.getContext('2d');
  if (!ctx || canvas.width === 0 || canvas.height === 0) return null;
  const { data, width, height } = ctx.getImageData(0, 0, canvas.width, canvas.height);
  let minX = width;
  let minY = height;
  let maxX = -1;
  let maxY = -1;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (data[(y * width + x) * 4 + 3]! > 16) {
        if (x < minX) minX = x;
        if (x > maxX) maxX = x;
        if (y < minY) minY = y;
        if (y > maxY) maxY = y;
      }
    }
  }
  return maxX < 0 ? null : { x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1 };
}

/** Copies `box` of the source (plus a margin) into a new canvas no larger than the signature maximum. */
function crop(source: CanvasImageSource, box: Box, margin: number): HTMLCanvasElement {
  const scale = Math.min(1, MAX_WIDTH / (box.width + 2 * margin), MAX_HEIGHT / (box.height + 2 * margin));
  const out = document.createElement('canvas');
  out.width = Math.max(1, Math.round((box.width + 2 * margin) * scale));
  out.height = Math.max(1, Math.round((box.height + 2 * margin) * scale));
  const ctx = out.getContext('2d')!;
  ctx.drawImage(
    source,
    box.x,
    box.y,
    box.width,
    box.height,
    margin * scale,
    margin * scale,
    box.width * scale,
    box.height * scale,
  );
  return out;
}

export function drawnSignature(canvas: HTMLCanvasElement): AdoptedSignature | null {
  const box = inkBounds(canvas);
  return box ? adopted('drawn', crop(canvas, box, 8)) : null;
}

/** Renders typed text in the handwriting font; waits for the font so the PNG never shows a fallback face. */
export async function typedSignature(text: string, color = '#1a2a6c'): Promise<AdoptedSignature | null> {
  const clean = text.trim();
  if (clean === '') return null;
  const size = 96;
  const font = `${size}px ${SIGNATURE_FONT}`;
  try {
    await document.fonts.load(font, clean);
  } catch {
    // rendered with whatever the browser has; still the signer's text
  }
  const canvas = document.createElement('canvas');
  const ctx = canvas.getContext('2d')!;
  ctx.font = font;
  const width = Math.ceil(ctx.measureText(clean).width) + size;
  canvas.width = Math.min(width, 4000);
  canvas.height = size * 2;
  ctx.font = font;
  ctx.fillStyle = color;
  ctx.textBaseline = 'middle';
  ctx.fillText(clean, size / 2, size);
  const box = inkBounds(canvas);
  return box ? adopted('typed', crop(canvas, box, 8), clean) : null;
}

/** Reads an uploaded picture and redraws it as PNG; null when it is not an image the browser can decode. */
export async function uploadedSignature(file: File): Promise<AdoptedSignature | null> {
  const url = URL.createObjectURL(file);
  try {
    const image = new Image();
    image.src = url;
    await image.decode();
    const box = { x: 0, y: 0, width: image.naturalWidth, height: image.naturalHeight };
    if (box.width === 0 || box.height === 0) return null;
    return adopted('uploaded', crop(image, box, 0));
  } catch {
    return null;
  } finally {
    URL.revokeObjectURL(url);
  }
}
