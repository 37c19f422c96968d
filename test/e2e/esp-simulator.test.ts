// The ESP simulator's pages in Chromium: the ASP's form post, the consent + OTP page, and the auto-post
// back to the responseUrl, all under the simulator's Content-Security-Policy (no violation logged).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { formatEsignTimestamp, signEsignRequest, verifyEsignResponse } from '../../server/aadhaar/messages.js';
import { checkPhoneWidth, collectPageErrors, launchChromium, newContext, screenshots } from '../support/browser.js';
import { startTestEsp, type TestEsp } from '../support/esp.js';

function escapeAttr(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

describe('ESP simulator in Chromium', () => {
  let browser: Browser;
  let esp: TestEsp;
  let asp: Server;
  let aspOrigin = '';
  let startPage = '';
  const received: URLSearchParams[] = [];

  before(async () => {
    esp = await startTestEsp();
    browser = await launchChromium();
    // A stand-in ASP: one page with the Esign form, and the response URL that records what arrives.
    asp = createServer((req, res) => {
      if (req.method === 'POST') {
        let body = '';
        req.on('data', (c: Buffer) => (body += c.toString()));
        req.on('end', () => {
          received.push(new URLSearchParams(body));
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end('<!doctype html><title>back at the ASP</title><h1>Received</h1>');
        });
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(startPage);
    });
    await new Promise<void>((resolve) => asp.listen(0, '127.0.0.1', resolve));
    aspOrigin = `http://127.0.0.1:${(asp.address() as AddressInfo).port}`;
  });
  after(async () => {
    await browser?.close();
    await new Promise((resolve) => asp.close(resolve));
    await esp.close();
  });

  test('consent + OTP page, then the signed EsignResp auto-posted to the responseUrl', async () => {
    const txn = `e2e-${Date.now()}`;
    const xml = await signEsignRequest(
      {
        ver: '2.1',
        sc: 'Y',
        ts: formatEsignTimestamp(new Date()),
        txn,
        ekycId: '',
        ekycIdType: 'A',
        aspId: esp.aspId,
        authMode: '1',
        responseSigType: 'pkcs7',
        responseUrl: `${aspOrigin}/response`,
        docs: [
          {
            id: '1',
            hashAlgorithm: 'SHA256',
            docInfo: 'Lease agreement',
            hash: createHash('sha256').update('pdf bytes').digest('hex'),
          },
        ],
      },
      esp.aspSigner,
    );
    startPage = `<!doctype html><form method="post" action="${esp.espUrl}"><input type="hidden" name="eSignRequest" value="${escapeAttr(xml)}"><input type="hidden" name="aspTxnID" value="${txn}"><input type="hidden" name="Content-Type" value="application/xml"><button>Sign with Aadhaar</button></form>`;
    const context = await newContext(browser);
    const page = await context.newPage();
    const errors = collectPageErrors(page);
    const shots = screenshots('esp-simulator');
    await page.goto(`${aspOrigin}/start`);
    await page.getByRole('button', { name: 'Sign with Aadhaar' }).click();
    await page.getByRole('heading', { name: 'Sign with Aadhaar' }).waitFor();
    assert.match((await page.textContent('main')) ?? '', /Lease agreement/);
    await page.getByLabel('Name as in Aadhaar').fill('Asha Rao');
    await page.getByLabel('OTP').fill('123456');
    await page.getByLabel(/I consent/).check();
    await shots.take(page, 'otp-page');
    await checkPhoneWidth(page, shots, 'otp-page', [
      page.getByLabel('OTP'),
      page.getByRole('button', { name: 'Sign', exact: true }),
    ]);
    await page.getByRole('button', { name: 'Sign', exact: true }).click();
    await page.getByRole('heading', { name: 'Received' }).waitFor();
    assert.equal(received.length, 1);
    assert.equal(received[0]!.get('espTxnID'), txn);
    const res = verifyEsignResponse(received[0]!.get('eSignResponse')!, esp.espCertPem);
    assert.equal(res.status, '1');
    assert.equal(res.signatures.length, 1);
    assert.deepEqual(errors, [], 'no CSP violation or script error');
    await context.close();
  });
});
