/**
 * `mohar verify FILE [--json]`: exit 0 when every signature is valid and nothing after any signature is
 * beyond form filling, signing and validation data (an `other` or `annotations` change); 1 otherwise.
 */
import { readFile } from 'node:fs/promises';
import { formatReport, verifyPdf, type VerifyReport } from '../pdf/index.js';

/** Whether anything after a signature is beyond what a signed document may gain (shown with its reason). */
export function changedBeyondSigning(report: VerifyReport): boolean {
  return report.signatures.some((s) => s.changesAfter === 'other' || s.changesAfter === 'annotations');
}

export async function verifyCommand(file: string, options: { json?: boolean }): Promise<void> {
  const report = verifyPdf(await readFile(file));
  process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatReport(report)}\n`);
  process.exitCode = report.valid && !changedBeyondSigning(report) ? 0 : 1;
}
