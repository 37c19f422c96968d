/**
 * Batch signing against the real signer API (SQLite) with a SoftHSM2 token: several DSC envelopes for one
 * signer, their documents listed with name and hash, ONE PIN prompt, exactly one C_Login and one C_Logout for
 * the whole batch (counted on pkcs11js itself), every envelope completed and judged by pdfsig; an envelope
 * voided meanwhile fails alone; a wrong PIN signs nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pkcs11js from 'pkcs11js';
import type { BatchHttp } from '../../../main/signer/batch-fetch.js';
import { createDesktopSigner, type DesktopSigner } from '../../../main/signer/index.js';
import { useDscTrust } from '../../support/dsc-trust.js';
import { makeDraft, sendDraft, type Draft } from '../../support/envelopes.js';
import { API, useTestServer, type TestServer } from '../../support/server.js';
import { createSoftHsm, type SoftHsm } from '../../support/softhsm.js';
import { pdfsigVerdicts } from '../../support/validators.js';
import { scriptedPrompt } from '../../support/pin-prompt.js';

// Counted where the token is reached: pkcs11js copies prototype methods onto each instance when it is made,
// so the spy is installed before any module is loaded.
const calls = { login: 0, logout: 0 };
const nativePrototype = Object.getPrototypeOf(pkcs11js.PKCS11.prototype) as Record<
  string,
  (...a: unknown[]) => unknown
>;
const realLogin = nativePrototype.C_Login!;
const realLogout = nativePrototype.C_Logout!;
nativePrototype.C_Login = function (this: unknown, ...args: unknown[]) {
  calls.login += 1;
  return realLogin.apply(this, args);
};
nativePrototype.C_Logout = function (this: unknown, ...args: unknown[]) {
  calls.logout += 1;
  return realLogout.apply(this, args);
};

const trust = useDscTrust();
let hsm: SoftHsm;
let signer: DesktopSigner;
const prompt = scriptedPrompt();
let server: TestServer | undefined;

/** The batch's HTTP port over the test server's inject (the links' origin does not matter there). */
const http: BatchHttp = {
  async request(method, url, body) {
    const u = new URL(url);
    const answer = await server!.app.inject({
      method,
      url: `${u.pathname}${u.search}`,
      ...(body ? { payload: body, headers: { 'content-type': 'application/pdf' } } : {}),
    });
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(answer.headers)) if (v !== undefined) headers[k] = String(v);
    return { status: answer.statusCode, headers, body: answer.rawPayload };
  },
};

before(async () => {
  const pki = await trust.ready();
  hsm = createSoftHsm({ pki: pki.pki, keys: pki.tokenKeys() });
  pki.registerToken(hsm);
  signer = createDesktopSigner({ modulePaths: [hsm.modulePath], pinPrompt: prompt, http });
});

after(async () => {
  await signer?.close();
  hsm?.cleanup();
});

describe('batch signing with one PIN', () => {
  const t = useTestServer('sqlite', trust.env);

  async function dscEnvelope(title: string): Promise<{ draft: Draft; link: string }> {
    server = t.server;
    const draft = await makeDraft(t.server, t.account.key, {
      body: { title },
      recipients: [{ name: 'Asha Rao', email: 'asha@example.com', signature_method: 'dsc' }],
    });
    await sendDraft(t.server, t.account.key, draft);
    const session = await t.server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
      key: t.account.key,
      json: { recipient_id: draft.recipientIds[0], mode: 'redirect' },
    });
    return { draft, link: session.json().signing_url as string };
  }

  async function tokenChoice(): Promise<{ slotId: string; certificateId: string }> {
    const listed = await signer.listTokens();
    assert.ok(listed.ok);
    const token = listed.value.find((x) => x.label === hsm.tokenLabel)!;
    const certificate = token.certificates.find((c) => c.keyAlgorithm === 'RSA' && c.usableForSigning)!;
    return { slotId: token.slotId, certificateId: certificate.id };
  }

  test('four envelopes, one voided meanwhile: one PIN, one C_Login, one C_Logout, three completed', async () => {
    const envelopes = await Promise.all(['Invoice 1', 'Invoice 2', 'Return Q3', 'Invoice 4'].map(dscEnvelope));
    assert.deepEqual(signer.batch.add(envelopes.map((e) => e.link)), []);
    const listed = await signer.batch.refresh();
    assert.equal(listed.length, 4);
    for (const item of listed) {
      assert.equal(item.state, 'ready', JSON.stringify(item));
      assert.match(item.documentSha256, /^[0-9a-f]{64}$/);
      assert.ok(item.documentName.length > 0);
    }
    const voided = envelopes[2]!;
    const v = await t.server.request('POST', `${API}/envelopes/${voided.draft.id}/void`, {
      key: t.account.key,
      json: { reason: 'sent by mistake' },
    });
    assert.equal(v.statusCode, 200);

    const choice = await tokenChoice();
    calls.login = 0;
    calls.logout = 0;
    prompt.answer(hsm.pin);
    const asked = prompt.requests.length;
    const report = await signer.batch.sign(choice);

    assert.equal(prompt.requests.length - asked, 1, 'the PIN was asked once');
    const request = prompt.requests.at(-1)!;
    assert.deepEqual(
      request.documents?.map((d) => d.sha256),
      listed.map((i) => i.documentSha256),
      'the PIN window lists every document with its hash',
    );
    assert.equal(calls.login, 1, 'one C_Login for the batch');
    assert.equal(calls.logout, 1, 'one C_Logout for the batch');
    assert.equal(report.stoppedBy, null);
    assert.equal(report.signed, 3, JSON.stringify(report));
    assert.equal(report.failed, 1);
    const failedItem = report.items.find((i) => i.state === 'failed')!;
    assert.ok(failedItem.signingUrl === voided.link);
    assert.match(failedItem.reason ?? '', /refused/);

    for (const [index, { draft }] of envelopes.entries()) {
      if (index === 2) continue;
      assert.equal(report.items[index]!.envelopeStatus, 'completed');
      const final = (
        await t.server.request('GET', `${API}/envelopes/${draft.id}/documents/${draft.documentId}/download`, {
          key: t.account.key,
        })
      ).rawPayload;
      const verdicts = pdfsigVerdicts(final);
      assert.ok(verdicts.valid.length >= 2 && verdicts.valid.every(Boolean), verdicts.output);
      assert.match(verdicts.output, /Asha Rao/);
    }
    signer.batch.clear();
    assert.deepEqual(signer.batch.items(), []);
  });

  test('a wrong PIN stops the batch before any signature', async () => {
    const envelopes = await Promise.all(['Bill A', 'Bill B', 'Bill C'].map(dscEnvelope));
    signer.batch.add(envelopes.map((e) => e.link));
    await signer.batch.refresh();
    const choice = await tokenChoice();
    calls.login = 0;
    calls.logout = 0;
    prompt.answer('000000');
    const report = await signer.batch.sign(choice);
    assert.equal(report.stoppedBy?.code, 'pin_incorrect');
    assert.match(report.stoppedBy?.message ?? '', /Nothing was signed/);
    assert.equal(report.signed, 0);
    assert.equal(report.skipped, 3);
    assert.equal(calls.login, 1);
    assert.equal(calls.logout, 0, 'nothing to log out of');
    for (const { link } of envelopes) {
      const token = link.split('/sign/')[1]!;
      const view = await t.server.request('GET', `${API}/signing/${token}`);
      assert.equal(view.json().action, 'sign', 'still waiting for the signature');
    }
    // Fetched again (as the page does before a new try), then cancelled: nothing touched the token.
    assert.ok((await signer.batch.refresh()).every((i) => i.state === 'ready'));
    calls.login = 0;
    prompt.answer(null);
    const cancelled = await signer.batch.sign(choice);
    assert.equal(cancelled.stoppedBy?.code, 'pin_cancelled');
    assert.equal(calls.login, 0);
  });

  // Last: these flags stay on the token. SoftHSM keeps no retry counter; they are written into its store.
  test('final try: the PIN window is told, a wrong PIN says one try is left; locked: no PIN is asked', async () => {
    const envelopes = await Promise.all(['Note 1', 'Note 2'].map(dscEnvelope));
    signer.batch.add(envelopes.map((e) => e.link));
    await signer.batch.refresh();
    const choice = await tokenChoice();
    hsm.setPersistedTokenFlags(hsm.tokenLabel, { set: pkcs11js.CKF_USER_PIN_FINAL_TRY });
    prompt.answer('000000');
    const report = await signer.batch.sign(choice);
    assert.equal(prompt.requests.at(-1)!.finalTry, true);
    assert.equal(report.stoppedBy?.code, 'pin_incorrect');
    assert.equal(report.stoppedBy?.triesLeft, 1);
    assert.match(report.stoppedBy?.message ?? '', /One more wrong PIN locks the token/);

    await signer.batch.refresh();
    hsm.setPersistedTokenFlags(hsm.tokenLabel, { set: pkcs11js.CKF_USER_PIN_LOCKED });
    const asked = prompt.requests.length;
    calls.login = 0;
    const locked = await signer.batch.sign(choice);
    assert.equal(locked.stoppedBy?.code, 'pin_locked');
    assert.equal(prompt.requests.length, asked, 'no PIN asked for a locked token');
    assert.equal(calls.login, 0);
    assert.equal(locked.signed, 0);
  });
});
