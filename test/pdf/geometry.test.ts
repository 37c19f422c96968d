import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { PdfReader, getPages } from '../../pdf/index.js';
import {
  visiblePageSize,
  visibleBox,
  viewRectToUserSpace,
  userSpaceRectToView,
  rectFitsPage,
  type PageBoxes,
} from '../../pdf/geometry.js';
import type { Rotation } from '../../pdf/pages.js';
import { makePdf, renderPageGray, darkPixelBounds, hasTool, type FixtureBox } from '../support/pdf-fixtures.js';

const ROTATIONS: Rotation[] = [0, 90, 180, 270];
const letter = (rotate: Rotation): PageBoxes => ({ mediaBox: [0, 0, 612, 792], rotate });

describe('visible page size', () => {
  test('swaps width and height for 90 and 270', () => {
    assert.deepEqual(visiblePageSize(letter(0)), { width: 612, height: 792 });
    assert.deepEqual(visiblePageSize(letter(90)), { width: 792, height: 612 });
    assert.deepEqual(visiblePageSize(letter(180)), { width: 612, height: 792 });
    assert.deepEqual(visiblePageSize(letter(270)), { width: 792, height: 612 });
  });

  test('uses the CropBox clipped to the MediaBox', () => {
    const page: PageBoxes = { mediaBox: [0, 0, 600, 800], cropBox: [-50, 100, 300, 900], rotate: 90 };
    assert.deepEqual(visibleBox(page), [0, 100, 300, 800]);
    assert.deepEqual(visiblePageSize(page), { width: 700, height: 300 });
    const disjoint: PageBoxes = { mediaBox: [0, 0, 100, 100], cropBox: [200, 200, 300, 300], rotate: 0 };
    assert.deepEqual(visibleBox(disjoint), [0, 0, 100, 100], 'an empty intersection falls back to the MediaBox');
  });
});

describe('view rectangle -> user space, concrete numbers', () => {
  const rect = { x: 10, y: 20, width: 100, height: 50 };
  test('Letter page, each rotation', () => {
    // Rotate 0: top-left origin, y flipped.
    assert.deepEqual(viewRectToUserSpace(letter(0), rect), [10, 722, 110, 772]);
    // Rotate 90 (clockwise): view x runs up the page, view y runs right.
    assert.deepEqual(viewRectToUserSpace(letter(90), rect), [20, 10, 70, 110]);
    // Rotate 180: both axes reversed.
    assert.deepEqual(viewRectToUserSpace(letter(180), rect), [502, 20, 602, 70]);
    // Rotate 270: view x runs down the page, view y runs left.
    assert.deepEqual(viewRectToUserSpace(letter(270), rect), [542, 682, 592, 782]);
  });

  test('boxes that do not start at 0,0', () => {
    const page = (rotate: Rotation): PageBoxes => ({
      mediaBox: [-100, -200, 500, 600],
      cropBox: [50, 100, 450, 500],
      rotate,
    });
    assert.deepEqual(viewRectToUserSpace(page(0), rect), [60, 430, 160, 480]);
    assert.deepEqual(viewRectToUserSpace(page(90), rect), [70, 110, 120, 210]);
    assert.deepEqual(viewRectToUserSpace(page(180), rect), [340, 120, 440, 170]);
    assert.deepEqual(viewRectToUserSpace(page(270), rect), [380, 390, 430, 490]);
  });

  test('the whole visible page maps to the visible box', () => {
    for (const rotate of ROTATIONS) {
      const page: PageBoxes = { mediaBox: [0, 0, 612, 792], cropBox: [12, 30, 600, 700], rotate };
      const { width, height } = visiblePageSize(page);
      assert.deepEqual(viewRectToUserSpace(page, { x: 0, y: 0, width, height }), [12, 30, 600, 700]);
    }
  });
});

describe('round trips', () => {
  test('view -> user -> view is the identity for all rotations and offset boxes', () => {
    const boxes: { mediaBox: FixtureBox; cropBox?: FixtureBox }[] = [
      { mediaBox: [0, 0, 612, 792] },
      { mediaBox: [-100, -200, 500, 600], cropBox: [50, 100, 450, 500] },
      { mediaBox: [10.5, 20.25, 300.75, 400.5] },
    ];
    for (const b of boxes) {
      for (const rotate of ROTATIONS) {
        const page: PageBoxes = { ...b, rotate };
        for (const rect of [
          { x: 0, y: 0, width: 1, height: 1 },
          { x: 33.5, y: 12.25, width: 80, height: 40 },
        ]) {
          const back = userSpaceRectToView(page, viewRectToUserSpace(page, rect));
          for (const k of ['x', 'y', 'width', 'height'] as const) {
            assert.ok(Math.abs(back[k] - rect[k]) < 1e-9, `${k} ${rotate}`);
          }
        }
        const user: FixtureBox = [b.mediaBox[0] + 20, b.mediaBox[1] + 30, b.mediaBox[0] + 90, b.mediaBox[1] + 45];
        assert.deepEqual(viewRectToUserSpace(page, userSpaceRectToView(page, user)), user);
      }
    }
  });

  test('userSpaceRectToView accepts corners in any order', () => {
    assert.deepEqual(userSpaceRectToView(letter(0), [110, 772, 10, 722]), { x: 10, y: 20, width: 100, height: 50 });
  });

  test('rectFitsPage', () => {
    assert.equal(rectFitsPage(letter(90), { x: 700, y: 10, width: 92, height: 10 }), true);
    assert.equal(rectFitsPage(letter(0), { x: 700, y: 10, width: 92, height: 10 }), false);
    assert.equal(rectFitsPage(letter(0), { x: -5, y: 10, width: 10, height: 10 }), false);
  });
});

describe(
  'agrees with what a viewer draws (poppler pdftoppm)',
  { skip: !hasTool('pdftoppm') && 'pdftoppm not installed' },
  () => {
    // A black rectangle drawn at a user-space position must appear where userSpaceRectToView says.
    for (const rotate of ROTATIONS) {
      test(`rotate ${rotate}, MediaBox and CropBox not at the origin`, () => {
        const user: FixtureBox = [100, 200, 180, 230];
        const pdf = makePdf({
          pages: [
            {
              mediaBox: [50, 100, 450, 700],
              cropBox: [60, 120, 400, 650],
              rotate,
              content: `0 g ${user[0]} ${user[1]} 80 30 re f`,
            },
          ],
        });
        const page = getPages(PdfReader.open(pdf))[0]!;
        const img = renderPageGray(pdf);
        assert.deepEqual({ width: img.width, height: img.height }, visiblePageSize(page));
        assert.deepEqual(darkPixelBounds(img), userSpaceRectToView(page, user));
        // and the inverse: the rendered position converts back to where it was drawn
        assert.deepEqual(viewRectToUserSpace(page, darkPixelBounds(img)!), user);
      });
    }
  },
);
