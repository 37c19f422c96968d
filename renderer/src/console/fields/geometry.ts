/**
 * Moving and resizing in PDF points. A field never leaves its page: every result is clamped inside the page
 * box, and (for the mouse, not for exact keyboard or number input) an edge within SNAP points of a page edge
 * snaps onto it.
 */
import type { EditorField, PageBox } from './types';

export const MIN_SIZE = 8;
const SNAP = 6;

const round = (n: number): number => Math.round(n * 100) / 100;

function snapInto(start: number, size: number, limit: number, snap: boolean): number {
  let value = Math.min(Math.max(start, 0), Math.max(limit - size, 0));
  if (snap && value < SNAP) value = 0;
  if (snap && limit - (value + size) < SNAP) value = Math.max(limit - size, 0);
  return round(value);
}

/** The field moved to (x, y), kept and snapped inside the page. */
export function placeAt(field: EditorField, x: number, y: number, page: PageBox, snap = true): EditorField {
  const width = Math.min(field.width, page.width);
  const height = Math.min(field.height, page.height);
  return {
    ...field,
    width,
    height,
    x: snapInto(x, width, page.width, snap),
    y: snapInto(y, height, page.height, snap),
  };
}

/** The field with a new size (its top-left corner stays), at least MIN_SIZE and never past the page edge. */
export function resizeTo(field: EditorField, width: number, height: number, page: PageBox, snap = true): EditorField {
  let w = Math.min(Math.max(width, MIN_SIZE), page.width - field.x);
  let h = Math.min(Math.max(height, MIN_SIZE), page.height - field.y);
  if (snap && page.width - (field.x + w) < SNAP) w = page.width - field.x;
  if (snap && page.height - (field.y + h) < SNAP) h = page.height - field.y;
  return { ...field, width: round(w), height: round(h) };
}

/** A new field of `size` centred on a point of the page. */
export function centredAt(field: EditorField, px: number, py: number, page: PageBox): EditorField {
  return placeAt(field, px - field.width / 2, py - field.height / 2, page);
}
