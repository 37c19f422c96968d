/**
 * The token doctor, pure: from what was found on this computer (drivers, tokens with their flags and
 * certificates, trusted roots, the clock and a reference time) to findings with what to do, in English and Hindi.
 * Gathering those facts is doctor-run.ts; printing them is the CLI's and the page's.
 */
import type { DoctorCode, DoctorFinding, DoctorReport, DoctorSeverity } from '../../common/desktop-doctor.js';
import type { TokenCertificate as NativeCertificate, TokenInfo as NativeToken } from '../../native/index.js';
import { buildCertificatePath } from '../../pdf/index.js';
import { doctorText } from './doctor-text.js';
import type { MiddlewareStatus } from './middleware.js';

export interface DoctorToken {
  readonly token: NativeToken;
  readonly moduleName: string;
  /** Every certificate on the token, CA certificates included (they help build chains). */
  readonly certificates: readonly NativeCertificate[];
}

export interface DoctorInput {
  readonly now: Date;
  readonly middleware: readonly MiddlewareStatus[];
  /** Module files the signer named (settings, --module): drivers too, even when not in the vendor table. */
  readonly namedModules: readonly string[];
  readonly loadFailures: readonly { readonly path: string; readonly message: string }[];
  readonly tokens: readonly DoctorToken[];
  /** Roots a DSC chain must reach (the CCA India roots, plus configured ones). */
  readonly anchors: readonly Uint8Array[];
  /** A time from elsewhere (a server's Date header): the clock is compared with it when given. */
  readonly referenceTime?: { readonly at: Date; readonly source: string } | null;
  /** Default 30. */
  readonly expiryWarningDays?: number;
  /** Clock difference tolerated, default 5 minutes (signing times and TSA tokens are compared in minutes). */
  readonly clockToleranceMinutes?: number;
}

const DAY = 86_400_000;
const RANK: Readonly<Record<DoctorSeverity, number>> = { error: 2, warning: 1, info: 0 };

function day(date: Date): string {
  return date.toISOString().slice(0, 10);
}

function finding(
  code: DoctorCode,
  severity: DoctorSeverity,
  subject: string,
  values: Readonly<Record<string, string | number>> = {},
): DoctorFinding {
  return { code, severity, subject, ...doctorText(code, values) };
}

export function isForSigning(cert: NativeCertificate): boolean {
  return (
    cert.keyUsage === null || cert.keyUsage.includes('nonRepudiation') || cert.keyUsage.includes('digitalSignature')
  );
}

function isForEncryption(cert: NativeCertificate): boolean {
  return (
    cert.keyUsage !== null &&
    (cert.keyUsage.includes('keyEncipherment') ||
      cert.keyUsage.includes('dataEncipherment') ||
      cert.keyUsage.includes('keyAgreement'))
  );
}

function middlewareFindings(input: DoctorInput): DoctorFinding[] {
  const out: DoctorFinding[] = [];
  for (const m of input.middleware) {
    if (m.state === 'installed') {
      out.push(finding('middleware_installed', 'info', m.product, { product: m.product, path: m.found.join(', ') }));
    }
    if (m.state === 'folder-only') {
      out.push(
        finding('middleware_folder_only', 'warning', m.product, { product: m.product, path: m.found.join(', ') }),
      );
    }
  }
  const missing = input.middleware.filter((m) => m.state === 'missing').map((m) => m.product);
  const anyDriver = input.middleware.some((m) => m.state === 'installed') || input.namedModules.length > 0;
  if (!anyDriver) out.push(finding('middleware_none', 'error', 'drivers'));
  else if (missing.length > 0) {
    out.push(finding('middleware_missing', 'info', 'drivers', { products: missing.join(', ') }));
  }
  for (const failure of input.loadFailures) {
    out.push(finding('module_load_failed', 'error', failure.path, { path: failure.path, error: failure.message }));
  }
  return out;
}

function tokenFindings(entry: DoctorToken): DoctorFinding[] {
  const subject = `Token "${entry.token.label}" (${entry.moduleName}, serial ${entry.token.serial})`;
  const flags = entry.token.flags;
  if (flags.pinLocked) return [finding('pin_locked', 'error', subject)];
  const out: DoctorFinding[] = [];
  if (flags.pinFinalTry) out.push(finding('pin_final_try', 'error', subject));
  else if (flags.pinCountLow) out.push(finding('pin_count_low', 'warning', subject));
  if (flags.pinToBeChanged) out.push(finding('pin_to_be_changed', 'warning', subject));
  return out;
}

function certificateFindings(entry: DoctorToken, input: DoctorInput): DoctorFinding[] {
  const out: DoctorFinding[] = [];
  const warnDays = input.expiryWarningDays ?? 30;
  const now = input.now.getTime();
  const pool = entry.certificates.map((c) => c.der);
  for (const cert of entry.certificates.filter((c) => !c.isCa)) {
    const subject = `${cert.subjectCommonName ?? cert.subject} (token "${entry.token.label}")`;
    const signing = isForSigning(cert);
    if (signing) out.push(finding('certificate_signing', 'info', subject, { notAfter: day(cert.notAfter) }));
    else if (isForEncryption(cert)) out.push(finding('certificate_encryption', 'info', subject));
    if (cert.privateKey === null) out.push(finding('certificate_no_key', 'warning', subject));
    // Expiry and trust matter for the certificates that sign.
    if (!signing) continue;
    const daysLeft = Math.ceil((cert.notAfter.getTime() - now) / DAY);
    if (cert.notAfter.getTime() < now) {
      out.push(finding('certificate_expired', 'error', subject, { notAfter: day(cert.notAfter) }));
    } else if (daysLeft <= warnDays) {
      out.push(finding('certificate_expiring', 'warning', subject, { days: daysLeft, notAfter: day(cert.notAfter) }));
    }
    if (cert.notBefore.getTime() > now) {
      out.push(finding('certificate_not_yet_valid', 'warning', subject, { notBefore: day(cert.notBefore) }));
    }
    if (!buildCertificatePath(cert.der, pool, input.anchors).anchored) {
      out.push(finding('chain_untrusted', 'error', subject, { issuer: cert.issuerCommonName ?? cert.issuer }));
    }
  }
  return out;
}

/**
 * The clock: against the reference time when there is one (a server's Date header); otherwise a certificate
 * issued "in the future" betrays a clock that is behind (CAs do not post-date certificates).
 */
function clockFindings(input: DoctorInput): DoctorFinding[] {
  const tolerance = (input.clockToleranceMinutes ?? 5) * 60_000;
  const reference = input.referenceTime;
  if (reference) {
    const drift = input.now.getTime() - reference.at.getTime();
    if (Math.abs(drift) <= tolerance) return [];
    return [
      finding('clock_off', 'error', 'clock', {
        minutes: Math.round(Math.abs(drift) / 60_000),
        direction: drift > 0 ? 'ahead of' : 'behind',
        directionHi: drift > 0 ? 'आगे' : 'पीछे',
        source: reference.source,
      }),
    ];
  }
  const newest = input.tokens
    .flatMap((t) => t.certificates)
    .filter((c) => c.notBefore.getTime() > input.now.getTime() + tolerance)
    .sort((a, b) => b.notBefore.getTime() - a.notBefore.getTime())[0];
  if (!newest) return [];
  return [
    finding('clock_behind_certificate', 'error', 'clock', {
      name: newest.subjectCommonName ?? newest.subject,
      notBefore: day(newest.notBefore),
    }),
  ];
}

export function diagnose(input: DoctorInput): DoctorReport {
  const findings = [...middlewareFindings(input), ...clockFindings(input)];
  const loaded = input.middleware.some((m) => m.state === 'installed') || input.namedModules.length > 0;
  if (input.tokens.length === 0 && loaded) findings.push(finding('no_token', 'warning', 'tokens'));
  for (const entry of input.tokens) findings.push(...tokenFindings(entry), ...certificateFindings(entry, input));
  const worst = findings.reduce<DoctorSeverity>((w, f) => (RANK[f.severity] > RANK[w] ? f.severity : w), 'info');
  return { findings, worst, checkedAt: input.now.toISOString() };
}
