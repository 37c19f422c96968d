/**
 * What the simulated ESP does for each test Aadhaar number, and the error codes it answers with.
 * The codes for the signer's failures are the ones real ESPs return (UIDAI authentication codes and ESP
 * codes published in ESP/ASP documentation); the request-validation codes ESP-90x are the simulator's own
 * numbering (every ESP publishes its own list for those). docs/aadhaar-simulator.md lists them all.
 */

/** The one OTP the simulator accepts. */
export const SIMULATOR_OTP = '123456';

export interface EspError {
  readonly errCode: string;
  readonly errMsg: string;
}

/** Failures of the signer's authentication (status="0" in the EsignResp). */
export const AUTH_ERRORS = {
  wrongOtp: { errCode: '400', errMsg: 'Invalid OTP value' },
  otpExpired: { errCode: 'ESP-946', errMsg: 'OTP expired: the authentication page timed out' },
  attemptsExceeded: {
    errCode: '403',
    errMsg: 'Maximum number of attempts for OTP match is exceeded or OTP is not generated',
  },
  aadhaarLocked: { errCode: '331', errMsg: 'Aadhaar locked by Aadhaar number holder for all authentications' },
  serviceDown: { errCode: 'E-148', errMsg: 'eKYC services unavailable' },
  cancelled: { errCode: 'ESP-944', errMsg: 'User terminated eKYC process' },
  invalidAadhaar: { errCode: '998', errMsg: 'Invalid Aadhaar number' },
} as const satisfies Record<string, EspError>;

/** Problems with the ASP's request. The first three cannot be posted back (the responseUrl is not trusted). */
export const REQUEST_ERRORS = {
  malformed: { errCode: 'ESP-901', errMsg: 'The eSign request is not a well-formed Esign 2.1 XML form post' },
  unknownAsp: { errCode: 'ESP-902', errMsg: 'The aspId is not registered with this ESP' },
  badSignature: {
    errCode: 'ESP-903',
    errMsg: 'The ASP signature on the request does not verify with the registered ASP certificate',
  },
  badAttribute: { errCode: 'ESP-904', errMsg: 'An Esign attribute is not acceptable' },
  staleTimestamp: { errCode: 'ESP-905', errMsg: 'The request timestamp (ts) is outside the allowed window' },
  repeatedTxn: { errCode: 'ESP-906', errMsg: 'The txn was used before' },
  unknownTxn: { errCode: 'ESP-907', errMsg: 'No transaction with this txn for this ASP' },
} as const satisfies Record<string, EspError>;

export type Outcome =
  { readonly kind: 'sign'; readonly ekycName?: string } | { readonly kind: 'fail'; readonly error: EspError };

/**
 * Scripted Aadhaar numbers. Every other 12-digit number signs (with the right OTP). 999999990006 signs,
 * but e-KYC returns another name than the one entered: the ASP must notice the mismatch itself.
 */
export const TEST_AADHAAR = {
  success: '999999990019',
  wrongOtp: '999999990001',
  otpExpired: '999999990002',
  attemptsExceeded: '999999990003',
  aadhaarLocked: '999999990004',
  serviceDown: '999999990005',
  nameMismatch: '999999990006',
} as const;

/** The e-KYC name the simulator returns for TEST_AADHAAR.nameMismatch. */
export const MISMATCHED_NAME = 'Mismatched Name';

/** What happens when this Aadhaar number and OTP are submitted. */
export function outcomeFor(aadhaar: string, otp: string): Outcome {
  if (!/^\d{12}$/.test(aadhaar)) return { kind: 'fail', error: AUTH_ERRORS.invalidAadhaar };
  switch (aadhaar) {
    case TEST_AADHAAR.wrongOtp:
      return { kind: 'fail', error: AUTH_ERRORS.wrongOtp };
    case TEST_AADHAAR.otpExpired:
      return { kind: 'fail', error: AUTH_ERRORS.otpExpired };
    case TEST_AADHAAR.attemptsExceeded:
      return { kind: 'fail', error: AUTH_ERRORS.attemptsExceeded };
    case TEST_AADHAAR.aadhaarLocked:
      return { kind: 'fail', error: AUTH_ERRORS.aadhaarLocked };
    case TEST_AADHAAR.serviceDown:
      return { kind: 'fail', error: AUTH_ERRORS.serviceDown };
  }
  if (otp !== SIMULATOR_OTP) return { kind: 'fail', error: AUTH_ERRORS.wrongOtp };
  return aadhaar === TEST_AADHAAR.nameMismatch ? { kind: 'sign', ekycName: MISMATCHED_NAME } : { kind: 'sign' };
}
