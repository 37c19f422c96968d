/**
 * What can go wrong at the Aadhaar eSign round trip, in words the signing page shows (its EN and HI strings are
 * keyed `aadhaar.failed.<reason>`). The server maps the ESP's codes onto these (server/domain/aadhaar/esp-errors.ts)
 * and publishes them in the status answer's schema; the page reads them from that answer and from its own address
 * after the ESP sends the signer back.
 */
export const ESIGN_FAILURE_REASONS = [
  'otp_wrong',
  'otp_expired',
  'attempts_exceeded',
  'aadhaar_locked',
  'service_down',
  'cancelled',
  'aadhaar_invalid',
  'name_mismatch',
  'expired',
  'response_invalid',
  'certificate_untrusted',
  'document_changed',
  'esp_error',
] as const;

export type EsignFailureReason = (typeof ESIGN_FAILURE_REASONS)[number];

export function isEsignFailureReason(value: string): value is EsignFailureReason {
  return (ESIGN_FAILURE_REASONS as readonly string[]).includes(value);
}
