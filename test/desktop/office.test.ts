/**
 * Everything the Electron smoke test does that needs no Electron, run here against a real server on loopback:
 * the office helpers (login, API key, a DSC envelope, the completed download), the mohar:// link built from the
 * real signing URL and accepted by the desktop's parser with the origins main.ts trusts, the link found in the
 * argv a second instance gets, and a SoftHSM2 signature through the signing API that completes the envelope.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { deepLinkInArgv, parseDeepLink } from '../../main/electron/deep-link.js';
import { trustedOrigins } from '../../main/electron/trust.js';
import { createDesktopSigner, type DesktopSigner } from '../../main/signer/index.js';
import { scriptedPrompt } from '../support/pin-prompt.js';
import { listenOnLoopback } from '../support/browser.js';
import { useDscTrust } from '../support/dsc-trust.js';
import { makePdf } from '../support/pdf-fixtures.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, API, useTestServer } from '../support/server.js';
import { createSoftHsm, type SoftHsm } from '../support/softhsm.js';
import { pdfsigVerdicts } from '../support/validators.js';
import { completedDocument, officeAs, sendDscEnvelope } from './office.js';

const SIGNER = { name: 'Asha Rao', email: 'asha@example.com' };
const trust = useDscTrust();
const prompt = scriptedPrompt();
let hsm: SoftHsm;
let signer: DesktopSigner;

before(async () => {
  const pki = await trust.ready();
  hsm = createSoftHsm({ pki: pki.pki, keys: pki.tokenKeys({ commonName: SIGNER.name, email: SIGNER.email }) });
  pki.registerToken(hsm);
  signer = createDesktopSigner({ modulePaths: [hsm.modulePath], pinPrompt: prompt });
});
after(async () => {
  await signer?.close();
  hsm?.cleanup();
});

describe('the smoke test without Electron: office helpers, the mohar:// link, a token signature', () => {
  const t = useTestServer('sqlite', trust.env);

  test('the administrator sends a DSC envelope, its link opens in the desktop, the token signs, it completes', async () => {
    const origin = await listenOnLoopback(t.server);
    const office = await officeAs(origin, ADMIN_EMAIL, ADMIN_PASSWORD);
    const envelope = await sendDscEnvelope(office, SIGNER, makePdf({ pages: 1 }));
    const baseUrl = t.server.ctx.config.baseUrl;
    assert.ok(envelope.signingUrl.startsWith(`${baseUrl}/sign/`), envelope.signingUrl);

    // What main.ts trusts with the embedded server: its own origin and MOHAR_BASE_URL's.
    const link = `mohar://sign?url=${encodeURIComponent(envelope.signingUrl)}`;
    const argv = ['/opt/Mohar/mohar', '--no-sandbox', '/app/dist/main/electron/main.js', link];
    assert.equal(deepLinkInArgv(argv), link);
    assert.deepEqual(parseDeepLink(link, trustedOrigins(origin, [baseUrl])), {
      ok: true,
      signingUrl: envelope.signingUrl,
    });

    // What the page does with the bridge, the PIN coming from the (here scripted) PIN window.
    const signingToken = envelope.signingUrl.split('/sign/')[1]!;
    const base = `${origin}${API}/signing/${signingToken}/documents/${envelope.documentId}`;
    const prepared = await fetch(`${base}/prepared`);
    assert.equal(prepared.status, 200);
    const fieldName = decodeURIComponent(prepared.headers.get('x-mohar-signature-field') ?? '');
    const preparedBytes = Buffer.from(await prepared.arrayBuffer());
    const listed = await signer.listTokens();
    assert.ok(listed.ok);
    const token = listed.value.find((candidate) => candidate.label === hsm.tokenLabel)!;
    const certificate = token.certificates.find((c) => c.keyAlgorithm === 'RSA' && c.usableForSigning)!;
    prompt.answer(hsm.pin);
    const signed = await signer.signPrepared({
      pdfBase64: preparedBytes.toString('base64'),
      fieldName,
      slotId: token.slotId,
      certificateId: certificate.id,
      documentName: 'test.pdf',
    });
    assert.ok(signed.ok, JSON.stringify(signed));
    assert.equal(prompt.requests.at(-1)?.documentName, 'test.pdf');
    const upload = await fetch(`${base}/signed`, {
      method: 'PUT',
      headers: { 'content-type': 'application/pdf' },
      body: Buffer.from(signed.value.pdfBase64, 'base64'),
    });
    assert.equal(upload.status, 200, await upload.text());

    const pdf = await completedDocument(office, envelope);
    const verdicts = pdfsigVerdicts(pdf);
    assert.ok(verdicts.valid.length >= 1 && verdicts.valid.every(Boolean), verdicts.output);
    assert.match(verdicts.output, /Signer full Distinguished Name: .*CN=Asha Rao/);
  });
});
