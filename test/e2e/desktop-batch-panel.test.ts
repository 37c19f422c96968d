/**
 * End to end in Chromium: the signing page's batch panel inside Mohar Desktop (DesktopBatchPanel in DscPanel).
 * The page runs as in the desktop, as in dsc-signing.test.ts, but both bridges are fakes injected before the page
 * loads: window.moharDesktop lists one token with one signing certificate (so it is picked), and
 * window.moharDesktopBatch has three documents waiting, signs two and fails one with a reason, and its token
 * doctor finds a warning and an error. The panel lists the names and SHA-256s, keeps "Sign all" disabled until
 * the DSC consent is ticked, shows each document's result and the doctor's findings with their advice, in English
 * and Hindi, and fits a phone's width.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { BatchItem, BatchReport, BatchSignRequest } from '../../common/desktop-batch.js';
import type { TokenInfo } from '../../common/desktop-bridge.js';
import type { DoctorReport } from '../../common/desktop-doctor.js';
import {
  checkPhoneWidth,
  collectPageErrors,
  launchChromium,
  listenOnLoopback,
  newContext,
  onServer,
  PHONE,
  screenshots,
} from '../support/browser.js';
import { makeDraft, sendDraft } from '../support/envelopes.js';
import { ensureRendererBuilt } from '../support/renderer.js';
import { API, useTestServer } from '../support/server.js';

ensureRendererBuilt();
let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
});

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const TOKEN: TokenInfo = {
  slotId: '7',
  label: 'ePass2003',
  manufacturer: 'Feitian',
  model: 'ePass2003',
  serialNumber: '2A1F00C0FFEE',
  moduleName: 'eps2003csp11',
  pinLocked: false,
  pinFinalTry: false,
  certificates: [
    {
      id: 'a1b2c3',
      label: 'Asha Rao',
      subject: 'CN=Asha Rao,O=Personal,C=IN',
      commonName: 'Asha Rao',
      issuer: 'CN=Mohar Test Sub-CA,O=Mohar,C=IN',
      serialNumber: '1234',
      notBefore: '2026-01-01T00:00:00.000Z',
      notAfter: '2028-01-01T00:00:00.000Z',
      keyAlgorithm: 'RSA',
      certificateClass: 'Class 2',
      usableForSigning: true,
      problems: [],
    },
  ],
};

function item(n: number, documentName: string): BatchItem {
  return {
    id: `link-${n}#doc-${n}`,
    signingUrl: `https://sign.example.in/sign/link-${n}`,
    envelopeTitle: `Envelope ${n}`,
    documentName,
    documentSha256: sha256(documentName),
    state: 'ready',
    reason: null,
    reasonCode: null,
    envelopeStatus: null,
  };
}
// The second name has no space in it: at a phone's width it has to wrap all the same.
const WAITING: BatchItem[] = [
  item(1, 'Lease deed – Flat 4B.pdf'),
  item(2, 'Vendor-agreement-Bharat-Heavy-Industries-Pvt-Ltd-2026-final-v3.pdf'),
  item(3, 'Board resolution (March).pdf'),
];
const REFUSED = 'The sender voided this envelope before it was signed.';
const REPORT: BatchReport = {
  items: [
    { ...WAITING[0]!, state: 'signed', envelopeStatus: 'completed' },
    { ...WAITING[1]!, state: 'signed', envelopeStatus: 'sent' },
    { ...WAITING[2]!, state: 'failed', reason: REFUSED, reasonCode: 'envelope_closed' },
  ],
  signed: 2,
  failed: 1,
  skipped: 0,
  stoppedBy: null,
};
const DOCTOR: DoctorReport = {
  worst: 'error',
  checkedAt: '2026-11-29T10:00:00.000Z',
  findings: [
    {
      code: 'certificate_expiring',
      severity: 'warning',
      subject: 'Asha Rao',
      summary: { en: 'The certificate expires in 12 days.', hi: 'प्रमाणपत्र 12 दिनों में समाप्त हो जाएगा।' },
      advice: {
        en: 'Renew it with your certifying authority before then.',
        hi: 'उससे पहले अपने प्रमाणन प्राधिकारी से इसे नवीनीकृत कराएँ।',
      },
    },
    {
      code: 'clock_off',
      severity: 'error',
      subject: 'This computer',
      summary: { en: 'The clock is 9 minutes off.', hi: 'घड़ी 9 मिनट आगे-पीछे है।' },
      advice: {
        en: 'Turn on automatic date and time in the system settings.',
        hi: 'सिस्टम सेटिंग में स्वचालित दिनांक और समय चालू करें।',
      },
    },
  ],
};

/**
 * What the desktop's preload defines, faked in the page before it loads: window.moharDesktop (one token) and
 * window.moharDesktopBatch (the batch above). Every batch call is kept in window.__batchCalls.
 */
async function withFakeDesktop(context: BrowserContext): Promise<void> {
  await context.addInitScript({
    content: `(() => {
      const ok = (value) => Promise.resolve({ ok: true, value: JSON.parse(JSON.stringify(value)) });
      const tokens = ${JSON.stringify([TOKEN])};
      const waiting = ${JSON.stringify(WAITING)};
      const report = ${JSON.stringify(REPORT)};
      const doctor = ${JSON.stringify(DOCTOR)};
      let items = waiting;
      const calls = (window.__batchCalls = []);
      window.moharDesktop = Object.freeze({
        version: 1,
        listTokens: () => ok(tokens),
        signPrepared: () => Promise.resolve({ ok: false, error: { code: 'signing_failed', message: 'not in this test' } }),
        watchTokens: () => () => undefined,
      });
      window.moharDesktopBatch = Object.freeze({
        version: 1,
        list() { calls.push({ call: 'list' }); return ok(items); },
        sign(request) { calls.push({ call: 'sign', request }); items = report.items; return ok(report); },
        clear() { calls.push({ call: 'clear' }); items = items.filter((i) => i.state === 'ready'); return ok(items); },
        doctor() { calls.push({ call: 'doctor' }); return ok(doctor); },
      });
    })();`,
  });
}

type Call = { call: 'list' | 'clear' | 'doctor' } | { call: 'sign'; request: BatchSignRequest };
const batchCalls = (page: Page) =>
  page.evaluate(() => (globalThis as unknown as { __batchCalls: Call[] }).__batchCalls);

/** The batch panel's lines, one per document, as text. */
async function itemTexts(page: Page): Promise<string[]> {
  return page.locator('section.desktop-batch li.batch-item').allTextContents();
}

/** Neither the page nor the DSC panel (which scrolls on its own) needs scrolling sideways at a phone's width. */
async function fitsThePhone(page: Page, step: string): Promise<void> {
  // A string: the tests are compiled without the DOM's types.
  const widths = (await page.evaluate(`(() => {
    const panel = document.querySelector('.dsc-panel');
    const right = panel.getBoundingClientRect().right;
    const wide = [...document.querySelectorAll('section.desktop-batch *')]
      .filter((e) => e.getBoundingClientRect().right > right + 1)
      .map((e) => e.tagName.toLowerCase() + '.' + e.className);
    return { page: document.documentElement.scrollWidth, panel: panel.scrollWidth - panel.clientWidth, wide };
  })()`)) as { page: number; panel: number; wide: string[] };
  assert.ok(widths.page <= PHONE.width, `${step}: the page is ${widths.page} px wide at ${PHONE.width}`);
  assert.ok(widths.panel <= 1, `${step}: the DSC panel scrolls sideways by ${widths.panel} px`);
  assert.deepEqual(widths.wide, [], `${step}: parts of the batch panel stick out of the DSC panel`);
}

describe('the batch panel of the signing page in Mohar Desktop (fake bridges)', () => {
  const t = useTestServer('sqlite');
  const shots = screenshots('desktop-batch-panel');
  let origin: string;
  before(async () => {
    origin = await listenOnLoopback(t.server);
  });

  async function dscSigningUrl(): Promise<string> {
    const draft = await makeDraft(t.server, t.account.key, {
      recipients: [{ name: 'Asha Rao', email: 'asha@example.com', signature_method: 'dsc' }],
    });
    await sendDraft(t.server, t.account.key, draft);
    const session = await t.server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
      key: t.account.key,
      json: { recipient_id: draft.recipientIds[0], mode: 'redirect' },
    });
    return onServer(origin, session.json().signing_url);
  }

  test('lists the waiting documents, signs them all after the consent, shows each result and the token check, in English and Hindi, on a phone too', async () => {
    const url = await dscSigningUrl();
    const context = await newContext(browser, { viewport: { width: 1100, height: 900 } });
    await withFakeDesktop(context);
    try {
      const page = await context.newPage();
      const errors = collectPageErrors(page);
      await page.goto(url);
      const panel = page.getByRole('region', { name: 'Documents waiting in Mohar Desktop' });
      await panel.waitFor();
      await page.getByRole('radio', { name: /Asha Rao/ }).waitFor();
      assert.ok(await page.getByRole('radio', { name: /Asha Rao/ }).isChecked(), 'the one certificate is picked');

      // The list: each document's name, state and SHA-256, in the order given.
      await page.locator('section.desktop-batch li.batch-item').nth(2).waitFor();
      const listed = await itemTexts(page);
      assert.equal(listed.length, 3);
      WAITING.forEach((w, i) => {
        assert.ok(listed[i]!.includes(w.documentName), `item ${i + 1} names ${w.documentName}: ${listed[i]}`);
        assert.ok(listed[i]!.includes(`SHA-256 ${w.documentSha256}`), `item ${i + 1} shows its SHA-256`);
        assert.ok(listed[i]!.includes('To sign'), `item ${i + 1} is waiting: ${listed[i]}`);
      });

      // Sign all: disabled until the DSC consent is ticked, and nothing is signed meanwhile.
      const signAll = panel.getByRole('button', { name: 'Sign all 3 with one PIN' });
      assert.ok(await signAll.isDisabled(), 'Sign all is disabled before the consent');
      await signAll.click({ force: true });
      const consent = page.getByRole('checkbox', { name: /digital signature certificate on my USB token/ });
      assert.equal(await consent.isChecked(), false);
      await consent.check();
      assert.ok(await signAll.isEnabled(), 'Sign all is enabled once the consent is ticked');
      assert.deepEqual(
        (await batchCalls(page)).map((c) => c.call),
        ['list'],
        'nothing but the list was asked of the desktop before the consent',
      );
      await signAll.scrollIntoViewIfNeeded();
      await shots.take(page, 'listed');

      await signAll.click();
      await panel.getByRole('status').filter({ hasText: '2 signed, 1 failed, 0 skipped.' }).waitFor();
      const signCalls = (await batchCalls(page)).filter((c) => c.call === 'sign');
      assert.deepEqual(
        signCalls.map((c) => (c.call === 'sign' ? c.request : null)),
        [{ slotId: TOKEN.slotId, certificateId: TOKEN.certificates[0]!.id }],
        'one batch, with the picked certificate',
      );
      const results = await itemTexts(page);
      assert.match(results[0]!, new RegExp(`^${escape(WAITING[0]!.documentName)} Signed`));
      assert.match(results[1]!, new RegExp(`^${escape(WAITING[1]!.documentName)} Signed`));
      assert.match(results[2]!, new RegExp(`^${escape(WAITING[2]!.documentName)} Failed`));
      assert.ok(results[2]!.includes(REFUSED), `the failure says why: ${results[2]}`);
      assert.ok(!results[0]!.includes(REFUSED) && !results[1]!.includes(REFUSED));
      assert.equal(await panel.getByRole('button', { name: /^Sign all/ }).count(), 0, 'nothing is left to sign');

      // The token check: each finding with its severity, subject, summary and advice.
      await panel.getByRole('button', { name: 'Check my token and computer' }).click();
      const doctor = panel.getByLabel('Token check');
      await doctor.waitFor();
      const findings = await doctor.locator('li.finding').allTextContents();
      assert.deepEqual(findings, [
        'Warning Asha Rao: The certificate expires in 12 days.' +
          'What to do: Renew it with your certifying authority before then.',
        'Problem This computer: The clock is 9 minutes off.' +
          'What to do: Turn on automatic date and time in the system settings.',
      ]);
      assert.equal(await doctor.getByText('No problem found.').count(), 0);
      await doctor.scrollIntoViewIfNeeded();
      await shots.take(page, 'signed-and-checked');

      // At a phone's width: nothing scrolls sideways, neither the page nor the DSC panel.
      await page.setViewportSize(PHONE);
      await panel.getByRole('status').scrollIntoViewIfNeeded();
      await shots.take(page, 'results-phone');
      await doctor.scrollIntoViewIfNeeded();
      await shots.take(page, 'doctor-phone');
      await fitsThePhone(page, 'english');
      await page.setViewportSize({ width: 1100, height: 900 });

      // In Hindi: the same results and findings, in Hindi (the failure's reason comes from the desktop as is).
      await page.getByRole('combobox', { name: /Language|भाषा/ }).selectOption('hi');
      const hindiPanel = page.getByRole('region', { name: 'Mohar Desktop में प्रतीक्षारत दस्तावेज़' });
      await hindiPanel.waitFor();
      assert.equal(await page.getAttribute('html', 'lang'), 'hi');
      const hindi = await itemTexts(page);
      assert.match(hindi[0]!, new RegExp(`^${escape(WAITING[0]!.documentName)} हस्ताक्षरित`));
      assert.match(hindi[1]!, new RegExp(`^${escape(WAITING[1]!.documentName)} हस्ताक्षरित`));
      assert.match(hindi[2]!, new RegExp(`^${escape(WAITING[2]!.documentName)} विफल`));
      assert.ok(hindi[2]!.includes(REFUSED));
      hindi.forEach((text, i) => assert.ok(text.includes(`SHA-256 ${WAITING[i]!.documentSha256}`)));
      assert.equal(await hindiPanel.getByRole('status').textContent(), '2 हस्ताक्षरित, 1 विफल, 0 छोड़े गए।');
      const hindiDoctor = hindiPanel.getByLabel('टोकन जाँच');
      assert.deepEqual(await hindiDoctor.locator('li.finding').allTextContents(), [
        'चेतावनी Asha Rao: प्रमाणपत्र 12 दिनों में समाप्त हो जाएगा।' +
          'क्या करें: उससे पहले अपने प्रमाणन प्राधिकारी से इसे नवीनीकृत कराएँ।',
        'समस्या This computer: घड़ी 9 मिनट आगे-पीछे है।' + 'क्या करें: सिस्टम सेटिंग में स्वचालित दिनांक और समय चालू करें।',
      ]);
      await hindiPanel.getByRole('button', { name: 'मेरा टोकन और कंप्यूटर जाँचें' }).waitFor();
      await hindiPanel.getByRole('status').scrollIntoViewIfNeeded();
      await shots.take(page, 'results-hindi');
      await checkPhoneWidth(page, shots, 'hindi', [hindiPanel.getByRole('button', { name: 'सूची फिर से लोड करें' })]);
      await page.setViewportSize(PHONE);
      await fitsThePhone(page, 'hindi');
      await page.setViewportSize({ width: 1100, height: 900 });

      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  test('without window.moharDesktopBatch the DSC panel has no batch panel', async () => {
    const url = await dscSigningUrl();
    const context = await newContext(browser, { viewport: { width: 1100, height: 900 } });
    await withFakeDesktop(context);
    await context.addInitScript({ content: 'delete window.moharDesktopBatch;' });
    try {
      const page = await context.newPage();
      await page.goto(url);
      await page.getByRole('radio', { name: /Asha Rao/ }).waitFor();
      assert.equal(await page.locator('section.desktop-batch').count(), 0);
    } finally {
      await context.close();
    }
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
