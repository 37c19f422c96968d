/**
 * signPrepared with a real SoftHSM2 token: one PAdES revision into the named field (judged by pdfsig,
 * qpdf --check, openssl cms and Mohar's verifier; earlier bytes identical), and every coded refusal:
 * wrong PIN (nothing signed), cancel, bad input, unknown token / certificate, unusable certificate, busy
 * token, locked PIN, final try, and a token removed while the PIN window is open.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pkcs11js from 'pkcs11js';
import type { BridgeResult, SignPreparedRequest, TokenInfo } from '../../../common/desktop-bridge.js';
import { createDesktopSigner, type DesktopSigner } from '../../../main/signer/index.js';
import { verifyPdf } from '../../../pdf/verify/index.js';
import { makePdf, qpdfCheck } from '../../support/pdf-fixtures.js';
import { CCA_CLASS_2_POLICY } from '../../support/pki.js';
import { createSoftHsm, type SoftHsm } from '../../support/softhsm.js';
import { opensslCmsVerify, pdfsigVerdicts, signedParts } from '../../support/validators.js';
import { deferred, scriptedPrompt, type ScriptedPrompt } from '../../support/pin-prompt.js';

const FIELD = 'Signer1';

function errorOf<T>(result: BridgeResult<T>): { code: string; message: string; triesLeft?: number | null } {
  assert.equal(result.ok, false, `expected a failure, got ${JSON.stringify(result).slice(0, 300)}`);
  return (result as { ok: false; error: { code: string; message: string; triesLeft?: number | null } }).error;
}

function valueOf<T>(result: BridgeResult<T>): T {
  assert.ok(result.ok, `expected success, got ${JSON.stringify(result)}`);
  return result.value;
}

describe('main/signer: signPrepared (SoftHSM2)', () => {
  let hsm: SoftHsm;
  let prompt: ScriptedPrompt;
  let signer: DesktopSigner;
  let token: TokenInfo;
  const prepared = makePdf({
    pages: 2,
    signatureFields: [
      { name: FIELD, page: 1, rect: [50, 600, 250, 660] },
      { name: 'Other', page: 2, rect: [50, 50, 250, 110] },
    ],
  });

  const request = (overrides: Partial<SignPreparedRequest> = {}): SignPreparedRequest => ({
    pdfBase64: prepared.toString('base64'),
    fieldName: FIELD,
    slotId: token.slotId,
    certificateId: '01',
    documentName: 'NDA.pdf',
    ...overrides,
  });

  before(async () => {
    hsm = createSoftHsm({
      tokenLabel: 'Signing Token',
      keys: [
        {
          id: '01',
          label: 'rsa-signer',
          type: 'rsa',
          commonName: 'Asha Rao',
          email: 'asha@example.com',
          policies: [CCA_CLASS_2_POLICY],
        },
        { id: '02', label: 'ec-signer', type: 'ec', commonName: 'Ravi Kumar' },
        { id: '09', label: 'old', type: 'rsa', commonName: 'Old Signer', expired: true },
      ],
    });
    prompt = scriptedPrompt();
    signer = createDesktopSigner({ modulePaths: [hsm.modulePath], pinPrompt: prompt });
    token = valueOf(await signer.listTokens())[0]!;
  });

  after(async () => {
    await signer?.close();
    hsm?.cleanup();
  });

  test('signs the prepared PDF into the field: one revision, earlier bytes identical, valid for pdfsig, qpdf and openssl', async () => {
    prompt.answer(hsm.pin);
    const before = prompt.requests.length;
    const started = Date.now();
    const result = valueOf(await signer.signPrepared(request({ reason: 'I agree', location: 'Pune' })));
    const signed = Buffer.from(result.pdfBase64, 'base64');
    assert.ok(signed.length > prepared.length);
    assert.ok(signed.subarray(0, prepared.length).equals(prepared), 'the prepared bytes are an exact prefix');
    assert.equal(result.signerSubject, 'emailAddress=asha@example.com,CN=Asha Rao,O=Mohar Test,C=IN');
    assert.ok(Date.parse(result.signedAt) >= started - 1000 && Date.parse(result.signedAt) <= Date.now());

    // The PIN window was told what is signed, with what.
    assert.equal(prompt.requests.length, before + 1);
    const asked = prompt.requests.at(-1)!;
    assert.deepEqual(asked, {
      token: { label: 'Signing Token', serialNumber: hsm.tokenSerial, moduleName: 'softhsm2' },
      certificate: {
        subject: result.signerSubject,
        issuer: 'CN=Mohar Test Intermediate CA,O=Mohar Test,C=IN',
        notAfter: token.certificates.find((c) => c.id === '01')!.notAfter,
      },
      documentName: 'NDA.pdf',
      documentSha256: createHash('sha256').update(prepared).digest('hex'),
      finalTry: false,
    });

    const poppler = pdfsigVerdicts(signed);
    assert.deepEqual(poppler.valid, [true], poppler.output);
    assert.match(poppler.output, /Asha Rao/);
    assert.ok(qpdfCheck(signed).ok, qpdfCheck(signed).output);

    const report = verifyPdf(signed);
    assert.equal(report.revisions, verifyPdf(prepared).revisions + 1);
    assert.equal(report.signatures.length, 1);
    const signature = report.signatures[0]!;
    assert.equal(signature.field, FIELD);
    assert.equal(signature.valid, true, signature.problems.join('; '));
    assert.equal(signature.coversWholeDocument, true);
    assert.equal(signature.padesLevel, 'B-B');
    assert.equal(signature.reason, 'I agree');
    assert.equal(signature.name, 'Asha Rao');

    const { data, cms } = signedParts(signed, signature.byteRange);
    const caFile = join(hsm.tokenDir, '..', 'root.pem');
    writeFileSync(caFile, hsm.pki.root.certPem);
    const openssl = opensslCmsVerify(cms, data, caFile);
    assert.ok(openssl.ok, `openssl cms -verify with the chain from the token: ${openssl.output}`);
  });

  test('an EC P-256 key signs too', async () => {
    prompt.answer(hsm.pin);
    const signed = Buffer.from(
      valueOf(await signer.signPrepared(request({ certificateId: '02', fieldName: 'Other' }))).pdfBase64,
      'base64',
    );
    assert.deepEqual(pdfsigVerdicts(signed).valid, [true]);
    assert.equal(verifyPdf(signed).signatures[0]!.field, 'Other');
  });

  test('a wrong PIN: pin_incorrect (tries left unknown on SoftHSM), nothing signed; the right PIN then works', async () => {
    prompt.answer('000000');
    const error = errorOf(await signer.signPrepared(request()));
    assert.equal(error.code, 'pin_incorrect');
    assert.equal(error.triesLeft, null);
    assert.doesNotMatch(error.message, /000000/);
    prompt.answer(hsm.pin);
    valueOf(await signer.signPrepared(request()));
  });

  test('cancel in the PIN window: pin_cancelled', async () => {
    prompt.answer(null);
    assert.equal(errorOf(await signer.signPrepared(request())).code, 'pin_cancelled');
  });

  test('bad requests are invalid_request, refused before the PIN is asked for', async () => {
    const asked = prompt.requests.length;
    const signedOnce = await (async () => {
      prompt.answer(hsm.pin);
      return valueOf(await signer.signPrepared(request())).pdfBase64;
    })();
    const cases: [string, unknown, RegExp][] = [
      ['not an object', 'sign please', /must be an object/],
      ['null', null, /must be an object/],
      ['not base64', request({ pdfBase64: 'JVBERi0x%%%' }), /not valid base64/],
      [
        'base64 of something else',
        request({ pdfBase64: Buffer.from('hello world, not a pdf').toString('base64') }),
        /does not hold a PDF/,
      ],
      ['a broken PDF', request({ pdfBase64: Buffer.from('%PDF-1.7\nrubbish').toString('base64') }), /cannot be signed/],
      ['no such field', request({ fieldName: 'Nobody' }), /no signature field "Nobody"/],
      ['a field already signed', request({ pdfBase64: signedOnce }), /already signed/],
      [
        'a certified PDF that allows no changes',
        request({
          pdfBase64: makePdf({ signatureFields: [{ name: FIELD, rect: [10, 10, 100, 50] }], docMdp: 1 }).toString(
            'base64',
          ),
        }),
        /cannot be signed/,
      ],
      ['no slot', { ...request(), slotId: undefined }, /slotId/],
      ['a number as certificate id', { ...request(), certificateId: 1 }, /certificateId/],
      ['an empty document name', request({ documentName: '' }), /documentName/],
      ['a reason that is not text', { ...request(), reason: { html: '<b>' } }, /reason/],
    ];
    prompt.answer(); // nothing queued: an askPin call would fail the test
    for (const [what, body, message] of cases) {
      const error = errorOf(await signer.signPrepared(body as SignPreparedRequest));
      assert.equal(error.code, 'invalid_request', what);
      assert.match(error.message, message, what);
    }
    assert.equal(prompt.requests.length, asked + 1, 'only the one real signature asked for a PIN');

    const small = createDesktopSigner({ modulePaths: [hsm.modulePath], pinPrompt: prompt, maxPdfBytes: 100 });
    try {
      const error = errorOf(await small.signPrepared(request()));
      assert.equal(error.code, 'invalid_request', error.message);
      assert.match(error.message, /larger than 100 bytes/);
    } finally {
      await small.close();
    }
  });

  test('control characters in the document name do not reach the PIN window', async () => {
    prompt.answer(null);
    await signer.signPrepared(request({ documentName: 'Lease\u202e fdp.exe\n\u0007' }));
    assert.equal(prompt.requests.at(-1)!.documentName, 'Lease  fdp.exe');
  });

  test('unknown token, unknown certificate and unusable certificates are refused before the PIN', async () => {
    const asked = prompt.requests.length;
    assert.equal(errorOf(await signer.signPrepared(request({ slotId: '0'.repeat(24) }))).code, 'token_not_found');
    assert.equal(errorOf(await signer.signPrepared(request({ certificateId: 'ff' }))).code, 'certificate_not_found');
    const expired = errorOf(await signer.signPrepared(request({ certificateId: '09' })));
    assert.equal(expired.code, 'certificate_not_usable');
    assert.match(expired.message, /expired on 2021-01-01/);
    const later = createDesktopSigner({
      modulePaths: [hsm.modulePath],
      pinPrompt: prompt,
      now: () => new Date(Date.now() + 3 * 365 * 86_400_000),
    });
    try {
      assert.equal(errorOf(await later.signPrepared(request())).code, 'certificate_not_usable');
    } finally {
      await later.close();
    }
    assert.equal(prompt.requests.length, asked);
  });

  test('one signing at a time per token: a second request while the PIN window is open is busy', async () => {
    const pinWindow = deferred<string | null>();
    prompt.answer(() => pinWindow.promise);
    const asked = prompt.requests.length;
    const first = signer.signPrepared(request());
    await waitFor(() => prompt.requests.length === asked + 1);
    const second = errorOf(await signer.signPrepared(request({ certificateId: '02', fieldName: 'Other' })));
    assert.equal(second.code, 'busy');
    pinWindow.resolve(hsm.pin);
    valueOf(await first);
    // Free again afterwards.
    prompt.answer(null);
    assert.equal(errorOf(await signer.signPrepared(request())).code, 'pin_cancelled');
  });

  test('a token whose PIN is locked: pin_locked, without asking for the PIN', async () => {
    hsm.setPersistedTokenFlags(hsm.tokenLabel, { set: pkcs11js.CKF_USER_PIN_LOCKED });
    try {
      const listed = valueOf(await signer.listTokens())[0]!;
      assert.equal(listed.pinLocked, true);
      const asked = prompt.requests.length;
      assert.equal(errorOf(await signer.signPrepared(request())).code, 'pin_locked');
      assert.equal(prompt.requests.length, asked);
    } finally {
      hsm.setPersistedTokenFlags(hsm.tokenLabel, { clear: pkcs11js.CKF_USER_PIN_LOCKED });
    }
  });

  test('the final try: the PIN window is told, and a wrong PIN reports one try left', async () => {
    hsm.setPersistedTokenFlags(hsm.tokenLabel, { set: pkcs11js.CKF_USER_PIN_FINAL_TRY });
    try {
      assert.equal(valueOf(await signer.listTokens())[0]!.pinFinalTry, true);
      prompt.answer('999999');
      const error = errorOf(await signer.signPrepared(request()));
      assert.equal(prompt.requests.at(-1)!.finalTry, true);
      assert.equal(error.code, 'pin_incorrect');
      assert.equal(error.triesLeft, 1);
      assert.match(error.message, /One more wrong PIN locks the token/);
    } finally {
      hsm.setPersistedTokenFlags(hsm.tokenLabel, { clear: pkcs11js.CKF_USER_PIN_FINAL_TRY });
    }
  });

  test('a certificate whose key is not on the token: offered before the PIN (keys are hidden until login), refused after it', async () => {
    const foreign = hsm.pki.issueSoftwareSigner({ commonName: 'Foreign Signer' });
    const file = join(hsm.tokenDir, '..', 'foreign.der');
    writeFileSync(file, foreign.certDer);
    hsm.pkcs11Tool([
      '--login',
      '--pin',
      hsm.pin,
      '--write-object',
      file,
      '--type',
      'cert',
      '--id',
      'dd',
      '--label',
      'foreign',
    ]);
    const listed = valueOf(await signer.listTokens())[0]!.certificates.find((c) => c.id === 'dd');
    assert.ok(listed, 'the new certificate is listed');
    assert.equal(listed.commonName, 'Foreign Signer');
    assert.equal(listed.usableForSigning, true, 'without the PIN its missing key cannot be seen');
    prompt.answer(hsm.pin);
    const error = errorOf(await signer.signPrepared(request({ certificateId: 'dd' })));
    assert.equal(error.code, 'certificate_not_usable');
    assert.match(error.message, /no private key/);
  });

  // Last: the token is gone afterwards.
  test('the token removed while the PIN window is open: token_removed, nothing signed', async () => {
    prompt.answer(async () => {
      hsm.deleteToken(hsm.tokenLabel);
      return hsm.pin;
    });
    const error = errorOf(await signer.signPrepared(request()));
    assert.equal(error.code, 'token_removed');
    assert.equal(errorOf(await signer.signPrepared(request())).code, 'token_not_found');
  });
});

async function waitFor(condition: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
