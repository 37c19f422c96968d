/**
 * `mohar tokens --doctor`: the token doctor's findings (main/signer/doctor.ts) as text, English by default or Hindi
 * with --lang hi; exit code 1 when any finding is an error. --server URL compares the clock with that server's.
 */
import type { DoctorReport, DoctorSeverity } from '../common/desktop-doctor.js';
import { runDoctor, serverTime } from '../main/signer/index.js';
import type { Config } from '../server/config.js';
import { dscTrustAnchors } from '../server/domain/trust/anchors.js';

export interface DoctorOptions {
  module?: string[];
  lang?: string;
  server?: string;
}

const LABELS: Record<'en' | 'hi', Record<DoctorSeverity, string> & { advice: string; ok: string }> = {
  en: { error: 'ERROR', warning: 'WARNING', info: 'OK', advice: 'What to do', ok: 'No problem found.' },
  hi: { error: 'त्रुटि', warning: 'चेतावनी', info: 'ठीक', advice: 'क्या करें', ok: 'कोई समस्या नहीं मिली।' },
};

export function formatDoctor(report: DoctorReport, lang: 'en' | 'hi'): string {
  const labels = LABELS[lang];
  const lines: string[] = [];
  for (const f of report.findings) {
    lines.push(`[${labels[f.severity]}] ${f.subject}: ${f.summary[lang]}`);
    if (f.severity !== 'info') lines.push(`    ${labels.advice}: ${f.advice[lang]}`);
  }
  if (report.worst === 'info') lines.push(labels.ok);
  return `${lines.join('\n')}\n`;
}

export async function doctorCommand(config: Config, options: DoctorOptions): Promise<void> {
  const lang = options.lang ?? 'en';
  if (lang !== 'en' && lang !== 'hi') throw new Error('--lang must be en or hi');
  const referenceTime = options.server ? await serverTime(options.server) : null;
  if (options.server && !referenceTime) process.stderr.write(`could not read the time of ${options.server}\n`);
  const report = await runDoctor({
    namedModules: [...config.pkcs11Modules],
    ...(options.module && options.module.length > 0 ? { onlyModules: options.module } : {}),
    anchors: dscTrustAnchors(config),
    referenceTime,
  });
  process.stdout.write(formatDoctor(report, lang));
  if (report.worst === 'error') process.exitCode = 1;
}
