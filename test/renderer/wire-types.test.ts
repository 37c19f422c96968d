/**
 * The signing page's wire types are the signer API's schemas' static types (issue 32, point 3). The page cannot
 * import server/ (lint), so it declares what it sends and reads (renderer/src/types.ts, common/signer-act.ts);
 * this file holds each declaration equal to the route schema's `Static` type. The checks are type-level:
 * `npm run typecheck` compiles this file (tsconfig.json includes test/) and fails on the first pair that
 * differs. The runtime test only makes the runner list the file.
 *
 * renderer/src/types.ts must stay free of imports: this program resolves modules the Node way, the renderer's
 * extensionless imports would not resolve here.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Static } from 'typebox';
import type { SignerActBody } from '../../common/signer-act.js';
import type {
  AadhaarStartBody,
  AadhaarStarted,
  AadhaarStatus,
  ActResult,
  PreparedBody,
  SignerView,
} from '../../renderer/src/types.js';
import type { EsignStartBody, EsignStartResponse, EsignStatusResponse } from '../../server/http/schemas/aadhaar.js';
import type {
  ActBody,
  ActResponse,
  PreparedBody as PreparedBodySchema,
  SignerViewResponse,
} from '../../server/http/schemas/signing.js';

/** Object types with their intersections flattened (TypeBox's Intersect), so that equal shapes compare equal. */
type Flat<T> = T extends readonly (infer U)[] ? Flat<U>[] : T extends object ? { [K in keyof T]: Flat<T[K]> } : T;
/** true only when A and B are the same type (optional, readonly and literal types included). */
type Equal<A, B> = (<T>() => T extends Flat<A> ? 1 : 2) extends <T>() => T extends Flat<B> ? 1 : 2 ? true : false;
/** Compiles only for `true`. */
function same<T extends true>(_proof?: T): void {}

same<Equal<SignerActBody, Static<typeof ActBody>>>();
same<Equal<ActResult, Static<typeof ActResponse>>>();
same<Equal<SignerView, Static<typeof SignerViewResponse>>>();
same<Equal<AadhaarStartBody, Static<typeof EsignStartBody>>>();
same<Equal<PreparedBody, Static<typeof PreparedBodySchema>>>();
// The page reads only where to send the signer of the Aadhaar start's answer.
same<Equal<AadhaarStarted, Pick<Static<typeof EsignStartResponse>, 'txn' | 'autopost_url'>>>();
// The failure's reason is a union of words on the server; the page reads it as a string (anything else equal).
type StatusWithStringReason = Omit<Static<typeof EsignStatusResponse>, 'failure'> & {
  failure: (Omit<NonNullable<Static<typeof EsignStatusResponse>['failure']>, 'reason'> & { reason: string }) | null;
};
same<Equal<AadhaarStatus, StatusWithStringReason>>();

test('the signing page declares the signer API bodies it sends and reads as the route schemas do', () => {
  assert.ok(true, 'checked by the compiler (npm run typecheck)');
});
