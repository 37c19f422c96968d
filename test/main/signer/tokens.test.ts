/**
 * The desktop signer's token list and token watching on a real SoftHSM2 token: the fields the page shows
 * (subject, CN, issuer, serial, validity, key algorithm, CCA class), usable flags with the reasons, and
 * insert / remove noticed by watchTokens (SoftHSM: softhsm2-util in another process, seen with rescan).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TokenInfo } from '../../../common/desktop-bridge.js';
import { createDesktopSigner, type DesktopSigner, type PinPrompt } from '../../../main/signer/index.js';
import { CCA_CLASS_2_POLICY, CCA_CLASS_3_POLICY } from '../../support/pki.js';
import { createSoftHsm, type SoftHsm } from '../../support/softhsm.js';

const neverAsked: PinPrompt = {
  askPin: () => Promise.reject(new Error('no PIN is asked while listing')),
};

describe('main/signer: listing and watching tokens (SoftHSM2)', () => {
  let hsm: SoftHsm;
  let signer: DesktopSigner;

  before(() => {
    hsm = createSoftHsm({
      tokenLabel: 'Desktop Token',
      keys: [
        {
          id: '01',
          label: 'rsa-signer',
          type: 'rsa',
          commonName: 'Asha Rao',
          email: 'asha@example.com',
          policies: [CCA_CLASS_2_POLICY],
        },
        { id: '02', label: 'ec-signer', type: 'ec', commonName: 'Ravi Kumar', policies: [CCA_CLASS_3_POLICY] },
        { id: '03', label: 'encrypt-only', type: 'ec', commonName: 'Only Encrypts', keyUsage: 'keyAgreement' },
        { id: '09', label: 'old', type: 'rsa', commonName: 'Old Signer', expired: true },
      ],
    });
    signer = createDesktopSigner({
      modulePaths: [hsm.modulePath],
      pinPrompt: neverAsked,
      watch: { intervalMs: 50, rescan: 'reinitialize' },
    });
  });

  after(async () => {
    await signer?.close();
    hsm?.cleanup();
  });

  test('lists the token and its signer certificates with the fields the page shows', async () => {
    const result = await signer.listTokens();
    assert.ok(result.ok, JSON.stringify(result));
    const tokens = result.value;
    // SoftHSM's blank token in its free slot is not a token to sign with.
    assert.deepEqual(
      tokens.map((t) => t.label),
      ['Desktop Token'],
    );
    const token = tokens[0]!;
    assert.equal(token.serialNumber, hsm.tokenSerial);
    assert.equal(token.manufacturer, 'SoftHSM project');
    assert.equal(token.model, 'SoftHSM v2');
    assert.equal(token.moduleName, 'softhsm2');
    assert.equal(token.pinLocked, false);
    assert.equal(token.pinFinalTry, false);
    assert.match(token.slotId, /^[0-9a-f]{24}$/);
    assert.deepEqual(JSON.parse(JSON.stringify(token)), token, 'plain JSON only');

    const byId = new Map(token.certificates.map((c) => [c.id, c]));
    // The intermediate CA certificate on the token ("ca01") is not offered.
    assert.deepEqual([...byId.keys()].sort(), ['01', '02', '03', '09']);

    const rsa = byId.get('01')!;
    const issued = hsm.keys.find((k) => k.id === '01')!.certificate!;
    assert.equal(rsa.subject, 'emailAddress=asha@example.com,CN=Asha Rao,O=Mohar Test,C=IN');
    assert.equal(rsa.commonName, 'Asha Rao');
    assert.equal(rsa.issuer, 'CN=Mohar Test Intermediate CA,O=Mohar Test,C=IN');
    assert.equal(rsa.serialNumber, issued.serialHex.replace(/^0+/, ''));
    assert.equal(rsa.label, 'rsa-signer');
    assert.equal(rsa.keyAlgorithm, 'RSA');
    assert.equal(rsa.certificateClass, 'Class 2');
    assert.equal(rsa.usableForSigning, true);
    assert.deepEqual(rsa.problems, []);
    assert.ok(Date.parse(rsa.notBefore) <= Date.now() && Date.now() < Date.parse(rsa.notAfter));
    assert.equal(new Date(rsa.notAfter).toISOString(), rsa.notAfter);

    const ec = byId.get('02')!;
    assert.equal(ec.keyAlgorithm, 'EC');
    assert.equal(ec.certificateClass, 'Class 3');
    assert.equal(ec.commonName, 'Ravi Kumar');
    assert.equal(ec.usableForSigning, true);

    const encrypting = byId.get('03')!;
    assert.equal(encrypting.certificateClass, null);
    assert.equal(encrypting.usableForSigning, false);
    assert.equal(encrypting.problems.length, 1);
    assert.match(encrypting.problems[0]!, /not meant for signing/);

    const expired = byId.get('09')!;
    assert.equal(expired.usableForSigning, false);
    assert.deepEqual(expired.problems, ['The certificate expired on 2021-01-01.']);
  });

  test('with another clock: every certificate is expired, or not valid yet', async () => {
    const future = createDesktopSigner({
      modulePaths: [hsm.modulePath],
      pinPrompt: neverAsked,
      now: () => new Date(Date.now() + 5 * 365 * 86_400_000),
    });
    const past = createDesktopSigner({
      modulePaths: [hsm.modulePath],
      pinPrompt: neverAsked,
      now: () => new Date('2019-06-01T00:00:00Z'),
    });
    try {
      const later = await future.listTokens();
      assert.ok(later.ok);
      const rsaLater = later.value[0]!.certificates.find((c) => c.id === '01')!;
      assert.equal(rsaLater.usableForSigning, false);
      assert.match(rsaLater.problems.join(' '), /^The certificate expired on \d{4}-\d{2}-\d{2}\.$/);
      const earlier = await past.listTokens();
      assert.ok(earlier.ok);
      const rsaEarlier = earlier.value[0]!.certificates.find((c) => c.id === '01')!;
      assert.match(rsaEarlier.problems.join(' '), /^The certificate is not valid before \d{4}-\d{2}-\d{2}\.$/);
      const old = earlier.value[0]!.certificates.find((c) => c.id === '09')!;
      assert.deepEqual(old.problems, ['The certificate is not valid before 2020-01-01.']);
    } finally {
      await future.close();
      await past.close();
    }
  });

  test('a module that cannot be loaded is reported and the others still work', async () => {
    const errors: unknown[] = [];
    const mixed = createDesktopSigner({
      modulePaths: ['/nonexistent/libnothing.so', hsm.modulePath],
      pinPrompt: neverAsked,
      onError: (e) => errors.push(e),
    });
    try {
      const result = await mixed.listTokens();
      assert.ok(result.ok);
      assert.deepEqual(
        result.value.map((t) => t.label),
        ['Desktop Token'],
      );
      assert.equal(errors.length, 1);
      assert.match(String((errors[0] as Error).message), /libnothing\.so/);
    } finally {
      await mixed.close();
    }
  });

  test('watchTokens: the listener gets the full list after a token is inserted and after it is removed', async () => {
    const lists: TokenInfo[][] = [];
    let wake: (() => void) | undefined;
    /** Waits for a list, from the index-th call on, whose sorted labels are `labels`. */
    const next = (from: number, labels: string) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(`no token list [${labels}]; got ${JSON.stringify(lists.map((l) => l.map((t) => t.label)))}`),
            ),
          10_000,
        );
        const check = () => {
          if (
            lists.slice(from).some(
              (l) =>
                l
                  .map((t) => t.label)
                  .sort()
                  .join() === labels,
            )
          ) {
            clearTimeout(timer);
            resolve();
          }
        };
        wake = check;
        check();
      });
    const stop = signer.watchTokens((tokens) => {
      lists.push(tokens);
      wake?.();
    });
    // Let the watcher take its first (silent) look before the token appears.
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(lists.length, 0, 'no call without a change');

    hsm.initToken('Inserted Token');
    await next(0, 'Desktop Token,Inserted Token');
    const inserted = lists.at(-1)!.find((t) => t.label === 'Inserted Token')!;
    assert.deepEqual(inserted.certificates, [], 'a fresh token holds no certificate');
    assert.ok(
      lists.at(-1)!.find((t) => t.label === 'Desktop Token')!.certificates.length === 4,
      'the full list, certificates included',
    );

    const count = lists.length;
    hsm.deleteToken('Inserted Token');
    await next(count, 'Desktop Token');

    stop();
    stop(); // idempotent
    await new Promise((r) => setTimeout(r, 200));
    const settled = lists.length;
    hsm.initToken('Unwatched Token');
    await new Promise((r) => setTimeout(r, 400));
    assert.equal(lists.length, settled, 'no calls after unsubscribing');
    const now = await signer.listTokens();
    assert.ok(now.ok);
  });
});
