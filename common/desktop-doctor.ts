/**
 * The token doctor's findings (main/signer/doctor.ts): what it checked, how bad it is, and what to do, in English
 * and Hindi. Plain JSON, shared by `mohar tokens --doctor`, the desktop's IPC and the doctor page.
 */
export type DoctorSeverity = 'error' | 'warning' | 'info';

export interface DoctorText {
  en: string;
  hi: string;
}

export type DoctorCode =
  | 'middleware_installed'
  | 'middleware_folder_only'
  | 'middleware_missing'
  | 'middleware_none'
  | 'module_load_failed'
  | 'no_token'
  | 'pin_locked'
  | 'pin_final_try'
  | 'pin_count_low'
  | 'pin_to_be_changed'
  | 'certificate_signing'
  | 'certificate_encryption'
  | 'certificate_no_key'
  | 'certificate_expired'
  | 'certificate_expiring'
  | 'certificate_not_yet_valid'
  | 'chain_untrusted'
  | 'clock_off'
  | 'clock_behind_certificate';

export interface DoctorFinding {
  code: DoctorCode;
  severity: DoctorSeverity;
  /** What the finding is about: a driver, a token ("Token <label>") or a certificate (its common name). */
  subject: string;
  /** What was found. */
  summary: DoctorText;
  /** What to do about it. */
  advice: DoctorText;
}

export interface DoctorReport {
  findings: DoctorFinding[];
  /** The worst severity among the findings ('info' when all is well). */
  worst: DoctorSeverity;
  checkedAt: string;
}
