/**
 * The ESP's error codes in words the signing page can show (EN and HI strings live in renderer/, keyed by
 * `reason`). Codes are UIDAI authentication codes and ESP codes as ESPs publish them; an unknown code
 * keeps the ESP's own errMsg.
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

const BY_CODE: Readonly<Record<string, EsignFailureReason>> = {
  '400': 'otp_wrong',
  'ESP-943': 'otp_wrong',
  'ESP-946': 'otp_expired',
  '402': 'otp_expired',
  '403': 'attempts_exceeded',
  '330': 'aadhaar_locked',
  '331': 'aadhaar_locked',
  'E-148': 'service_down',
  'ESP-999': 'service_down',
  'ESP-944': 'cancelled',
  '998': 'aadhaar_invalid',
  '997': 'aadhaar_invalid',
};

export function reasonOfEspCode(errCode: string): EsignFailureReason {
  return BY_CODE[errCode.trim()] ?? (/^5\d\d$/.test(errCode.trim()) ? 'service_down' : 'esp_error');
}
