/**
 * The ESP's error codes as the reasons the signing page can say in words (common/esign-failures.ts; its EN and HI
 * strings live in renderer/, keyed by `reason`). Codes are UIDAI authentication codes and ESP codes as ESPs
 * publish them; an unknown code keeps the ESP's own errMsg.
 */
import type { EsignFailureReason } from '../../../common/esign-failures.js';

export { ESIGN_FAILURE_REASONS, type EsignFailureReason } from '../../../common/esign-failures.js';

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
