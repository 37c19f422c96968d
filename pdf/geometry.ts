/**
 * Mohar's coordinate convention: a rectangle {x, y, width, height} in PDF points, measured from the
 * TOP-LEFT corner of the page as a viewer shows it, i.e. of the visible box (CropBox clipped to the
 * MediaBox) after the page's /Rotate (clockwise) is applied. API callers place fields this way;
 * PDF annotations need default user space [llx, lly, urx, ury]. These functions convert both ways.
 */
import type { Box, Rotation } from './pages.js';

export interface Rect {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** What geometry needs of a page (PageInfo satisfies it). cropBox defaults to mediaBox. */
export interface PageBoxes {
  readonly mediaBox: Box;
  readonly cropBox?: Box;
  readonly rotate: Rotation;
}

/** The visible box in user space: the CropBox clipped to the MediaBox. */
export function visibleBox(page: PageBoxes): Box {
  const m = page.mediaBox;
  const c = page.cropBox ?? m;
  const box: Box = [Math.max(c[0], m[0]), Math.max(c[1], m[1]), Math.min(c[2], m[2]), Math.min(c[3], m[3])];
  return box[2] > box[0] && box[3] > box[1] ? box : m;
}

/** Width and height of the page as displayed (swapped for /Rotate 90 and 270). */
export function visiblePageSize(page: PageBoxes): { width: number; height: number } {
  const [x0, y0, x1, y1] = visibleBox(page);
  const w = x1 - x0;
  const h = y1 - y0;
  return page.rotate === 90 || page.rotate === 270 ? { width: h, height: w } : { width: w, height: h };
}

/** A user-space point -> view point (origin top-left of the displayed page, y downwards). */
export function userToView(page: PageBoxes, ux: number, uy: number): [number, number] {
  const [x0, y0, x1, y1] = visibleBox(page);
  switch (page.rotate) {
    case 90: // the page's left edge is shown at the top
      return [uy - y0, ux - x0];
    case 180:
      return [x1 - ux, uy - y0];
    case 270: // the page's right edge is shown at the top
      return [y1 - uy, x1 - ux];
    default:
      return [ux - x0, y1 - uy];
  }
}

/** A view point -> user-space point (inverse of userToView). */
export function viewToUser(page: PageBoxes, vx: number, vy: number): [number, number] {
  const [x0, y0, x1, y1] = visibleBox(page);
  switch (page.rotate) {
    case 90:
      return [x0 + vy, y0 + vx];
    case 180:
      return [x1 - vx, y0 + vy];
    case 270:
      return [x1 - vy, y1 - vx];
    default:
      return [x0 + vx, y1 - vy];
  }
}

/** A view rectangle -> [llx, lly, urx, ury] in default user space (e.g. for an annotation /Rect). */
export function viewRectToUserSpace(page: PageBoxes, rect: Rect): Box {
  const [ax, ay] = viewToUser(page, rect.x, rect.y);
  const [bx, by] = viewToUser(page, rect.x + rect.width, rect.y + rect.height);
  return [Math.min(ax, bx), Math.min(ay, by), Math.max(ax, bx), Math.max(ay, by)];
}

/** A user-space rectangle (any corner order) -> view rectangle. */
export function userSpaceRectToView(page: PageBoxes, rect: Box): Rect {
  const [ax, ay] = userToView(page, rect[0], rect[1]);
  const [bx, by] = userToView(page, rect[2], rect[3]);
  return { x: Math.min(ax, bx), y: Math.min(ay, by), width: Math.abs(bx - ax), height: Math.abs(by - ay) };
}

/** True if the view rectangle lies within the displayed page (with a small tolerance for rounding). */
export function rectFitsPage(page: PageBoxes, rect: Rect, tolerance = 0.01): boolean {
  const { width, height } = visiblePageSize(page);
  return (
    rect.width >= 0 &&
    rect.height >= 0 &&
    rect.x >= -tolerance &&
    rect.y >= -tolerance &&
    rect.x + rect.width <= width + tolerance &&
    rect.y + rect.height <= height + tolerance
  );
}
