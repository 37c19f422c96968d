/**
 * The simulated ESP's pages. No inline script or style: the auto-post page loads /esign/2.1/autopost.js
 * and every page /esign/2.1/esp.css, so they run under a strict Content-Security-Policy (server.ts). Links
 * are relative to the page (…/esign/2.1/signdoc, …/authenticate), so the pages also work where the
 * simulator is mounted under a prefix (the sandbox's /sandbox/esp/esign/2.1, server/routes/sandbox-esp.ts).
 */
import type { Session } from './esp.js';
import { SIMULATOR_OTP, TEST_AADHAAR, type EspError } from './scenarios.js';

export const BASE = '/esign/2.1';

function esc(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

function page(title: string, body: string): string {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(title)}</title><link rel="stylesheet" href="esp.css"><link rel="icon" href="favicon.ico"></head><body><main><p class="banner">ESP simulator — for tests only, no real Aadhaar authentication</p>${body}</main></body></html>`;
}

/** Consent, Aadhaar number, name (simulated e-KYC) and OTP. */
export function authenticatePage(session: Session, error?: string): string {
  const docs = session.request.docs
    .map((d) => `<li>${esc(d.docInfo || `Document ${d.id}`)} <code>${esc(d.hash.slice(0, 16))}…</code></li>`)
    .join('');
  return page(
    'Aadhaar eSign',
    `<h1>Sign with Aadhaar</h1>
<p><strong>${esc(session.request.aspId)}</strong> asks you to sign:</p><ul>${docs}</ul>
${error ? `<p class="error" role="alert">${esc(error)}</p>` : ''}
<form method="post" action="authenticate">
<input type="hidden" name="session" value="${esc(session.id)}">
<label>Aadhaar number <input name="aadhaar" inputmode="numeric" autocomplete="off" pattern="\\d{12}" required value="${TEST_AADHAAR.success}"></label>
<label>Name as in Aadhaar (simulated e-KYC) <input name="name" autocomplete="name" required></label>
<label>OTP <input name="otp" inputmode="numeric" autocomplete="one-time-code" value="" placeholder="${SIMULATOR_OTP}"></label>
<label class="consent"><input type="checkbox" name="consent" value="Y" required> I consent to authenticate with Aadhaar e-KYC and to the issue of a signing certificate for these documents.</label>
<button type="submit" name="action" value="sign">Sign</button>
<button type="submit" name="action" value="cancel" formnovalidate>Cancel</button>
</form>`,
  );
}

/** Posts the EsignResp to the ASP's responseUrl by itself (autopost.js), or by the button without script. */
export function autoPostPage(responseUrl: string, responseXml: string, txn: string): string {
  return page(
    'Returning to the application',
    `<h1>Returning to the application…</h1>
<form id="esign-response" method="post" action="${esc(responseUrl)}">
<input type="hidden" name="eSignResponse" value="${esc(responseXml)}">
<input type="hidden" name="espTxnID" value="${esc(txn)}">
<button type="submit">Continue</button>
</form><script src="autopost.js"></script>`,
  );
}

export function errorPage(error: EspError, detail: string): string {
  return page(
    'eSign error',
    `<h1>The eSign request was refused</h1><p class="error" role="alert"><strong>${esc(error.errCode)}</strong> ${esc(error.errMsg)}</p><p>${esc(detail)}</p>`,
  );
}

export const AUTOPOST_JS = `document.getElementById('esign-response').submit();\n`;

export const ESP_CSS = `body{font-family:system-ui,sans-serif;margin:0;background:#f4f4f0;color:#222}main{max-width:36rem;margin:2rem auto;background:#fff;padding:1.5rem;border-radius:.5rem}
.banner{background:#fff3cd;padding:.5rem;border-radius:.25rem;font-size:.9rem}label{display:block;margin:.75rem 0}input:not([type=checkbox]){display:block;box-sizing:border-box;width:100%;padding:.4rem;font-size:1rem}
.consent{font-size:.9rem}.error{color:#a40000}button{margin-right:.5rem;padding:.5rem 1rem;font-size:1rem}\n`;
