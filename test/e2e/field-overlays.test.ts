/**
 * End to end in Chromium: field overlays land on their PDF rectangles. The test PDF draws small black
 * squares just outside each field's corners, in user space computed here from the page's boxes and /Rotate
 * (an upright page, /Rotate 90, a MediaBox that does not start at 0,0, /Rotate 270 with a CropBox). Then,
 * at several zooms and on a phone-sized screen:
 *   - every overlay's DOM box is the field rectangle × the page's scale, from the page's top-left corner;
 *   - pdf.js drew the squares exactly at the overlay's corners (read from the page canvas), and not elsewhere.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, listenOnLoopback, newContext, onServer, screenshots } from '../support/browser.js';
import { makeDraft, sendDraft } from '../support/envelopes.js';
import { makePdf, type FixtureBox, type PageSpec } from '../support/pdf-fixtures.js';
import { ensureRendererBuilt } from '../support/renderer.js';
import { API, useTestServer } from '../support/server.js';

ensureRendererBuilt();
let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(() => browser?.close());

interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}
interface TestPage {
  spec: PageSpec;
  box: FixtureBox;
  rotate: 0 | 90 | 270;
  field: Rect;
}

/** A rectangle in view space (top-left origin of the displayed page) -> "x y w h" in user space. */
function toUser(page: TestPage, r: Rect): [number, number, number, number] {
  const [x0, y0, x1, y1] = page.box;
  if (page.rotate === 90) return [x0 + r.y, y0 + r.x, r.height, r.width];
  if (page.rotate === 270) return [x1 - r.y - r.height, y1 - r.x - r.width, r.height, r.width];
  return [x0 + r.x, y1 - r.y - r.height, r.width, r.height];
}

/** The two 6-point squares 2 points outside the field's top-left and bottom-right corners. */
function corners(f: Rect): Rect[] {
  return [
    { x: f.x - 8, y: f.y - 8, width: 6, height: 6 },
    { x: f.x + f.width + 2, y: f.y + f.height + 2, width: 6, height: 6 },
  ];
}

const SIGNATURE: Rect = { x: 40, y: 40, width: 180, height: 50 }; // where makeDraft puts the signer's Signature field
const PAGES: TestPage[] = [
  { spec: {}, box: [0, 0, 612, 792], rotate: 0, field: { x: 300, y: 500, width: 200, height: 24 } },
  { spec: { rotate: 90 }, box: [0, 0, 612, 792], rotate: 90, field: { x: 500, y: 100, width: 220, height: 30 } },
  {
    spec: { mediaBox: [100, 200, 400, 600] },
    box: [100, 200, 400, 600],
    rotate: 0,
    field: { x: 50, y: 300, width: 150, height: 24 },
  },
  {
    spec: { rotate: 270, cropBox: [50, 50, 562, 742] },
    box: [50, 50, 562, 742],
    rotate: 270,
    field: { x: 400, y: 60, width: 200, height: 28 },
  },
];

function testPdf(): Buffer {
  return makePdf({
    pages: PAGES.map((p, i) => {
      const rects = [...corners(p.field), ...(i === 0 ? corners(SIGNATURE) : [])];
      return { ...p.spec, content: rects.map((r) => `0 g ${toUser(p, r).join(' ')} re f`).join('\n') };
    }),
  });
}

/** Waits until every page is drawn at the scale it is laid out at. */
async function settled(page: Page): Promise<void> {
  const deadline = Date.now() + 30_000;
  const drawn = () =>
    page
      .locator('body')
      .evaluate((body) =>
        [...body.querySelectorAll('section.page')].every(
          (s) => s.querySelector('canvas')?.dataset.renderedScale === s.dataset.scale,
        ),
      );
  while (!(await drawn())) {
    if (Date.now() > deadline) throw new Error('the pages were not drawn at their scale within 30 s');
    await page.waitForTimeout(50);
  }
}

/**
 * Overlay boxes and canvas samples, measured in the page. (The test program has no DOM types: the page's
 * objects are reached from the element Playwright hands over.)
 */
async function measure(page: Page, fieldIds: string[]) {
  return page.locator('body').evaluate(
    (body, ids) =>
      ids.map((id) => {
        const overlay = body.querySelector(`[data-field-id="${id}"]`)!;
        const section = overlay.closest('section.page')!;
        const canvas = section.querySelector('canvas')!;
        const o = overlay.getBoundingClientRect();
        const p = section.getBoundingClientRect();
        const c = canvas.getBoundingClientRect();
        const dark = (cssX: number, cssY: number) => {
          const [r, g, b] = canvas
            .getContext('2d')!
            .getImageData(
              Math.floor(((cssX - c.left) * canvas.width) / c.width),
              Math.floor(((cssY - c.top) * canvas.height) / c.height),
              1,
              1,
            ).data;
          return r! + g! + b! < 200;
        };
        const s = Number((section as unknown as { dataset: { scale: string } }).dataset.scale); // CSS pixels per point
        return {
          overlay: { x: o.left - p.left, y: o.top - p.top, width: o.width, height: o.height },
          page: { width: p.width, height: p.height },
          // The middle of each mark (5 points out from the corner), and 5 points left of the middle of the left edge.
          topLeftDark: dark(o.left - 5 * s, o.top - 5 * s),
          bottomRightDark: dark(o.right + 5 * s, o.bottom + 5 * s),
          leftMiddleDark: dark(o.left - 5 * s, o.top + o.height / 2),
        };
      }),
    fieldIds,
  );
}

describe('field overlays on their PDF rectangles in Chromium', () => {
  const t = useTestServer('sqlite');
  const shots = screenshots('field-overlays');
  let url: string;
  let fields: { id: string; page: number; rect: Rect; display: { width: number; height: number } }[];

  before(async () => {
    const origin = await listenOnLoopback(t.server);
    const draft = await makeDraft(t.server, t.account.key, {
      recipients: [{ name: 'Asha Rao', email: 'asha@example.com' }],
      pdf: testPdf(),
      extraFields: (ids) =>
        PAGES.map((p, i) => ({
          recipient_id: ids[0],
          field_type: 8,
          page_number: i + 1,
          ...p.field,
          label: `Field on page ${i + 1}`,
        })),
    });
    await sendDraft(t.server, t.account.key, draft);
    const envelope = (await t.server.request('GET', `${API}/envelopes/${draft.id}`, { key: t.account.key })).json();
    const document = envelope.documents[0];
    assert.deepEqual(
      document.pages.map((p: { width: number; height: number }) => [p.width, p.height]),
      [
        [612, 792],
        [792, 612],
        [300, 400],
        [692, 512],
      ],
      'the visible sizes the server computed',
    );
    fields = document.fields.map(
      (f: { field_id: string; page_number: number; x: number; y: number; width: number; height: number }) => ({
        id: f.field_id,
        page: f.page_number,
        rect: { x: f.x, y: f.y, width: f.width, height: f.height },
        display: document.pages[f.page_number - 1],
      }),
    );
    const session = await t.server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
      key: t.account.key,
      json: { recipient_id: draft.recipientIds[0], mode: 'redirect' },
    });
    url = onServer(origin, session.json().signing_url);
  });

  async function check(page: Page, where: string): Promise<void> {
    await settled(page);
    const measured = await measure(
      page,
      fields.map((f) => f.id),
    );
    measured.forEach((m, i) => {
      const f = fields[i]!;
      const scale = m.page.width / f.display.width;
      const label = `${where}: field on page ${f.page} (${f.rect.x},${f.rect.y} ${f.rect.width}x${f.rect.height})`;
      assert.ok(Math.abs(m.page.height / scale - f.display.height) < 1, `${label}: page proportions`);
      for (const key of ['x', 'y', 'width', 'height'] as const) {
        assert.ok(
          Math.abs(m.overlay[key] - f.rect[key] * scale) <= 1,
          `${label}: ${key} is ${m.overlay[key].toFixed(1)}px, expected ${(f.rect[key] * scale).toFixed(1)}px`,
        );
      }
      assert.ok(m.topLeftDark, `${label}: pdf.js drew the top-left mark at the overlay's corner`);
      assert.ok(m.bottomRightDark, `${label}: pdf.js drew the bottom-right mark at the overlay's corner`);
      assert.ok(!m.leftMiddleDark, `${label}: and nothing beside the field's edge`);
    });
  }

  test('desktop at 100%, then zoomed in twice', async () => {
    const page = await (await newContext(browser, { viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(url);
    await check(page, 'desktop 100%');
    await page.getByRole('button', { name: 'Next page' }).click();
    await shots.take(page, 'desktop-rotated-90');
    await page.getByRole('button', { name: 'Zoom in' }).click();
    await page.getByRole('button', { name: 'Zoom in' }).click();
    assert.equal(await page.locator('output.zoom-value').textContent(), '150%');
    await check(page, 'desktop 150%');
    await page.locator('#page-3').scrollIntoViewIfNeeded();
    await shots.take(page, 'zoomed-offset-mediabox');
    await page.locator('#page-4').scrollIntoViewIfNeeded();
    await shots.take(page, 'zoomed-rotated-270-cropbox');
    await page.context().close();
  });

  test('phone-sized screen, pages fitted to the width', async () => {
    const page = await (
      await newContext(browser, {
        viewport: { width: 390, height: 844 },
        isMobile: true,
        hasTouch: true,
        deviceScaleFactor: 3,
      })
    ).newPage();
    await page.goto(url);
    await settled(page);
    await shots.take(page, 'phone');
    await check(page, 'phone');
    await page.context().close();
  });
});
