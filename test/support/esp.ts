/**
 * The offline ESP simulator for tests: a fresh simulated CCA root → ESP CA, an ESP response-signing key, an
 * ASP key and certificate (PEM and PKCS#12), and the simulator listening on 127.0.0.1 (port 0).
 *
 *   const esp = await startTestEsp();                  // { aspId: 'MOHAR-TEST-ASP', … }
 *   startTestServer(kind, { ...esp.env })              // MOHAR_ESIGN_* pointing at it
 *   const r = await esp.complete({ eSignRequest, aspTxnID });       // consent + Aadhaar + OTP through plain HTTP
 *   r.responseUrl, r.fields.eSignResponse, r.fields.espTxnID        // what the ESP's page would auto-post
 *   await esp.deliver(r)                                             // … posted (fetch, redirect: 'manual')
 * esp.complete(form, { aadhaar: TEST_AADHAAR.wrongOtp })           // scripted failures
 * (server/aadhaar/simulator/scenarios.ts)
 *   esp.trustAnchorPem / esp.trustAnchorPath           // the simulated root: add it to the trust anchors
 *   await esp.signResponse({ ...parsed, txn: other })   // an ESP-signed EsignResp with tampered content
 *   await esp.close()
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sign } from 'node:crypto';
import { signEsignResponse, type EsignResponse } from '../../server/aadhaar/messages.js';
import type { XmlSigner } from '../../server/aadhaar/xml.js';
import { createSimulatorPki, issueAspCertificate, type SimulatorPki } from '../../server/aadhaar/simulator/ca.js';
import { SIMULATOR_OTP, TEST_AADHAAR } from '../../server/aadhaar/simulator/scenarios.js';
import { writePkcs12 } from '../../server/aadhaar/simulator/pkcs12.js';
import { startEspSimulator, type RunningSimulator } from '../../server/aadhaar/simulator/server.js';

export {
  SIMULATOR_OTP,
  TEST_AADHAAR,
  MISMATCHED_NAME,
  AUTH_ERRORS,
  REQUEST_ERRORS,
} from '../../server/aadhaar/simulator/scenarios.js';

export interface EspPageResult {
  /** HTTP status of the last ESP page. */
  readonly status: number;
  readonly html: string;
  /** Set when the ESP's page auto-posts to the ASP: the form's action and fields. */
  readonly responseUrl?: string;
  readonly fields?: { readonly eSignResponse: string; readonly espTxnID: string };
}

export interface CompleteOptions {
  readonly aadhaar?: string;
  readonly otp?: string;
  /** The name simulated e-KYC returns (the certificate's CN). Default "Test Signer". */
  readonly name?: string;
  readonly cancel?: boolean;
  /** false: submit without ticking consent (the page is shown again). */
  readonly consent?: boolean;
}

export interface TestEsp {
  readonly url: string;
  readonly espUrl: string;
  readonly statusUrl: string;
  readonly aspId: string;
  readonly dir: string;
  readonly pki: SimulatorPki;
  readonly aspCertPem: string;
  readonly aspKeyPem: string;
  readonly aspP12Path: string;
  readonly aspP12Passphrase: string;
  /** The ESP's response-signing certificate: what the ASP pins (MOHAR_ESIGN_ESP_CERT). */
  readonly espCertPem: string;
  readonly espCertPath: string;
  /** The simulated CCA root the signer certificates chain to, and the ESP CA between. */
  readonly trustAnchorPem: string;
  readonly trustAnchorPath: string;
  readonly espCaPem: string;
  /** MOHAR_ESIGN_* for a server that uses this simulator. */
  readonly env: Readonly<Record<string, string>>;
  /** Signs as the ASP (for tests that build Esign/EsignStatus requests themselves). */
  readonly aspSigner: XmlSigner;
  /** Signs as the ESP (response key): for tampering tests that need a valid XML signature over wrong content. */
  readonly espSigner: XmlSigner;
  /** buildEsignResponse + the ESP's XML signature, e.g. a CMS from another transaction under this txn. */
  signResponse(response: EsignResponse): Promise<string>;
  readonly simulator: RunningSimulator;
  complete(
    form: { readonly eSignRequest: string; readonly aspTxnID: string },
    options?: CompleteOptions,
  ): Promise<EspPageResult>;
  deliver(result: EspPageResult, init?: { headers?: Record<string, string> }): Promise<Response>;
  close(): Promise<void>;
}

function unescapeHtml(value: string): string {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

function readAutoPost(status: number, html: string): EspPageResult {
  const action = /<form id="esign-response" method="post" action="([^"]*)"/.exec(html)?.[1];
  const field = (name: string): string | undefined => {
    const v = new RegExp(`<input type="hidden" name="${name}" value="([^"]*)"`).exec(html)?.[1];
    return v === undefined ? undefined : unescapeHtml(v);
  };
  const eSignResponse = field('eSignResponse');
  const espTxnID = field('espTxnID');
  if (action === undefined || eSignResponse === undefined || espTxnID === undefined) return { status, html };
  return { status, html, responseUrl: unescapeHtml(action), fields: { eSignResponse, espTxnID } };
}

async function postForm(url: string, fields: Record<string, string>): Promise<{ status: number; html: string }> {
  const res = await fetch(url, { method: 'POST', body: new URLSearchParams(fields), redirect: 'manual' });
  return { status: res.status, html: await res.text() };
}

export async function startTestEsp(options: { aspId?: string; now?: () => Date } = {}): Promise<TestEsp> {
  const aspId = options.aspId ?? 'MOHAR-TEST-ASP';
  const dir = mkdtempSync(join(tmpdir(), 'mohar-esp-'));
  const pki = await createSimulatorPki();
  const asp = await issueAspCertificate(pki, aspId);
  const write = (name: string, text: string): string => {
    const path = join(dir, name);
    writeFileSync(path, text, { mode: 0o600 });
    return path;
  };
  write('asp.pem', asp.certPem);
  write('asp.key.pem', asp.keyPem);
  const aspP12Passphrase = 'asp-test-passphrase';
  const aspP12Path = join(dir, 'asp.p12');
  const aspPkcs8 = new Uint8Array(asp.keyObject.export({ type: 'pkcs8', format: 'der' }));
  writeFileSync(
    aspP12Path,
    await writePkcs12({
      pkcs8: aspPkcs8,
      certificate: asp.certDer,
      passphrase: aspP12Passphrase,
      name: `${aspId} ASP`,
    }),
    { mode: 0o600 },
  );
  const espCertPath = write('esp-response-signing.pem', pki.responseSigner.certPem);
  const trustAnchorPath = write('simulated-cca-root.pem', pki.root.certPem);
  write('simulated-esp-ca.pem', pki.espCa.certPem);

  const simulator = await startEspSimulator({
    pki,
    asps: new Map([[aspId, asp.certPem]]),
    ...(options.now ? { now: options.now } : {}),
  });
  const env = {
    MOHAR_ESIGN_ESP_URL: simulator.espUrl,
    MOHAR_ESIGN_STATUS_URL: simulator.statusUrl,
    MOHAR_ESIGN_ASP_ID: aspId,
    MOHAR_ESIGN_ASP_KEY: aspP12Path,
    MOHAR_ESIGN_ASP_KEY_PASSPHRASE: aspP12Passphrase,
    MOHAR_ESIGN_ESP_CERT: espCertPath,
    MOHAR_ESIGN_AUTH_MODE: '1',
  };
  const aspSigner: XmlSigner = {
    certificate: asp.certDer,
    keyType: 'RSA',
    sign: async (data) => new Uint8Array(sign('sha256', data, asp.keyObject)),
  };
  const responseKey = pki.responseSigner.keyObject;
  const espSigner: XmlSigner = {
    certificate: pki.responseSigner.certDer,
    keyType: 'RSA',
    sign: async (data) => new Uint8Array(sign('sha256', data, responseKey)),
  };

  async function complete(
    form: { eSignRequest: string; aspTxnID: string },
    o: CompleteOptions = {},
  ): Promise<EspPageResult> {
    const first = await postForm(simulator.espUrl, {
      eSignRequest: form.eSignRequest,
      aspTxnID: form.aspTxnID,
      'Content-Type': 'application/xml',
    });
    const session = /name="session" value="([0-9a-f]+)"/.exec(first.html)?.[1];
    if (!session) return readAutoPost(first.status, first.html);
    const fields: Record<string, string> = {
      session,
      aadhaar: o.aadhaar ?? TEST_AADHAAR.success,
      name: o.name ?? 'Test Signer',
      otp: o.otp ?? SIMULATOR_OTP,
      action: o.cancel ? 'cancel' : 'sign',
    };
    if (o.consent !== false) fields.consent = 'Y';
    const second = await postForm(`${simulator.url}/esign/2.1/authenticate`, fields);
    return readAutoPost(second.status, second.html);
  }

  return {
    url: simulator.url,
    espUrl: simulator.espUrl,
    statusUrl: simulator.statusUrl,
    aspId,
    dir,
    pki,
    aspCertPem: asp.certPem,
    aspKeyPem: asp.keyPem,
    aspP12Path,
    aspP12Passphrase,
    espCertPem: pki.responseSigner.certPem,
    espCertPath,
    trustAnchorPem: pki.root.certPem,
    trustAnchorPath,
    espCaPem: pki.espCa.certPem,
    env,
    aspSigner,
    espSigner,
    signResponse: (response) => signEsignResponse(response, espSigner),
    simulator,
    complete,
    async deliver(result, init = {}) {
      if (!result.responseUrl || !result.fields) {
        throw new Error(`the ESP page does not post back (status ${result.status}): ${result.html.slice(0, 300)}`);
      }
      return fetch(result.responseUrl, {
        method: 'POST',
        body: new URLSearchParams(result.fields),
        redirect: 'manual',
        headers: init.headers ?? {},
      });
    },
    async close() {
      await simulator.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
