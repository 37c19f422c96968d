/**
 * The console field editor's local checks mirror the server's layout table (issue 16, point 2): a reviewer
 * or a cc holds no field (the server answers role_mismatch), an approver holds any field but Signature and
 * Initials.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

// The renderer is type-checked by its own tsconfig (bundler resolution); loaded by URL here so the server's
// tsconfig does not check it a second time under node16 resolution.
interface EditorParty {
  key: string;
  label: string;
  role: 'signer' | 'reviewer' | 'approver' | 'cc';
  signatureMethod: string;
}
interface EditorField {
  id: string;
  party: string;
  field_type: number;
  page_number: number;
  x: number;
  y: number;
  width: number;
  height: number;
}
interface FieldKinds {
  holdsFields(party: EditorParty): boolean;
  unavailableFor(type: number, party: EditorParty | undefined): string | null;
  localProblems(fields: readonly EditorField[], parties: readonly EditorParty[]): Map<string, string>;
}
const { holdsFields, localProblems, unavailableFor } = (await import(
  new URL('../../renderer/src/console/fields/field-kinds.ts', import.meta.url).href
)) as FieldKinds;

const party = (key: string, role: EditorParty['role']): EditorParty => ({
  key,
  role,
  signatureMethod: role === 'signer' ? 'electronic' : 'review',
  label: key,
});
const field = (id: string, partyKey: string, type: number): EditorField => ({
  id,
  party: partyKey,
  field_type: type,
  page_number: 1,
  x: 10,
  y: 10,
  width: 100,
  height: 20,
});

test('reviewers and cc hold no fields; approvers hold any but Signature and Initials', () => {
  const [signer, reviewer, approver, cc] = [
    party('s', 'signer'),
    party('r', 'reviewer'),
    party('a', 'approver'),
    party('c', 'cc'),
  ];
  assert.deepEqual([signer, reviewer, approver, cc].map(holdsFields), [true, false, true, false]);
  for (const type of [3, 4, 8, 9, 11]) {
    assert.equal(unavailableFor(type, reviewer), 'reviewer', `reviewer, type ${type}`);
    assert.equal(unavailableFor(type, cc), 'cc', `cc, type ${type}`);
    assert.equal(unavailableFor(type, approver), null, `approver, type ${type}`);
  }
  assert.equal(unavailableFor(1, approver), 'notSigner');
  assert.equal(unavailableFor(2, approver), 'notSigner');
  const problems = localProblems(
    [field('f1', 'r', 8), field('f2', 'a', 8), field('f3', 'c', 9)],
    [signer, reviewer, approver, cc],
  );
  assert.deepEqual(
    [...problems],
    [
      ['f1', 'reviewer'],
      ['f3', 'cc'],
    ],
  );
});

test('token-like signers hold no Initials: USB DSC and Aadhaar eSign (the server refuses them too)', () => {
  const signer = (signatureMethod: string): EditorParty => ({
    key: signatureMethod,
    role: 'signer',
    signatureMethod,
    label: signatureMethod,
  });
  assert.equal(unavailableFor(2, signer('dsc')), 'dscInitial');
  assert.equal(unavailableFor(2, signer('aadhaar')), 'aadhaarInitial');
  assert.equal(unavailableFor(2, signer('electronic')), null);
  assert.equal(unavailableFor(1, signer('aadhaar')), null);
});
