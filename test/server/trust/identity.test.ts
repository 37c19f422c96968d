/**
 * Binding a DSC certificate to the recipient (server/domain/trust/identity.ts) over real openssl certificates:
 * names compared without case, spaces or punctuation (Indian DSCs: "MEERA K. IYER"), nothing else forgiven;
 * e-mails without case; and the three policies an account can choose.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { certInfo } from '../../../pdf/cms/index.js';
import { bindIdentity, identityRefused, type IdentityPolicy } from '../../../server/domain/trust/identity.js';
import { createTestPki, type TestPki } from '../../support/pki.js';

let pki: TestPki;
before(() => {
  pki = createTestPki({ name: 'Identity Test' });
});
after(() => pki?.cleanup());

const meera = { name: 'Meera K Iyer', email: 'meera@example.com' };
const cert = (commonName: string, email?: string) =>
  certInfo(pki.issueSoftwareSigner({ commonName, ...(email ? { email } : {}), emailInSubject: false }).certDer);
const refusedUnder = (binding: ReturnType<typeof bindIdentity>) =>
  (['name_or_email', 'name_and_email', 'record_only'] as IdentityPolicy[]).map((p) => identityRefused(binding, p));

describe('DSC identity binding', () => {
  test('names: case, spaces and punctuation do not matter; a missing or extra initial does', () => {
    const same = ['MEERA K. IYER', 'Meera K Iyer', 'meera  k.iyer', 'MEERA-K-IYER', 'Meera K. Iyer.'];
    for (const name of same) assert.equal(bindIdentity(cert(name), meera).name_match, true, name);
    const apostrophe = bindIdentity(cert('ANITA DSOUZA'), { name: "Anita D'Souza", email: 'anita@example.com' });
    assert.equal(apostrophe.name_match, true, 'an apostrophe the CA dropped');
    const initials = bindIdentity(cert('M.K. IYER'), { name: 'MK Iyer', email: 'mk@example.com' });
    assert.equal(initials.name_match, true, 'dots between initials are punctuation');
    for (const name of ['Meera Iyer', 'Meera Kumari Iyer', 'Iyer Meera K', 'Dr. Meera K Iyer', 'Meena K Iyer']) {
      assert.equal(bindIdentity(cert(name), meera).name_match, false, name);
    }
  });

  test('e-mail ignores case; a certificate without e-mail has email_match null', () => {
    const upper = bindIdentity(cert('Someone', 'MEERA@Example.COM'), meera);
    assert.deepEqual([upper.name_match, upper.email_match], [false, true]);
    assert.equal(bindIdentity(cert('Meera K Iyer'), meera).email_match, null);
  });

  test('policies: name_or_email (default) refuses only when neither matches; name_and_email; record_only', () => {
    // [name_or_email, name_and_email, record_only]
    assert.deepEqual(refusedUnder(bindIdentity(cert('Ravi Kumar', 'ravi@example.com'), meera)), [true, true, false]);
    assert.deepEqual(refusedUnder(bindIdentity(cert('Ravi Kumar'), meera)), [true, true, false], 'no e-mail, no name');
    assert.deepEqual(refusedUnder(bindIdentity(cert('MEERA K. IYER', 'mk@other.in'), meera)), [false, true, false]);
    assert.deepEqual(refusedUnder(bindIdentity(cert('MEERA K. IYER'), meera)), [false, false, false]);
    assert.deepEqual(refusedUnder(bindIdentity(cert('M Iyer', 'meera@example.com'), meera)), [false, true, false]);
    assert.deepEqual(refusedUnder(bindIdentity(cert('Meera K Iyer', 'meera@example.com'), meera)), [
      false,
      false,
      false,
    ]);
  });
});
