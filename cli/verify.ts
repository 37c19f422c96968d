/** `mohar verify FILE [--json]`: exit 0 when every signature is valid, 1 otherwise. */
import { readFile } from 'node:fs/promises';
import { formatReport, verifyPdf } from '../pdf/verify/index.js';

export async function verifyCommand(file: string, options: { json?: boolean }): Promise<void> {
  const report = verifyPdf(await readFile(file));
  process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatReport(report)}\n`);
  process.exitCode = report.valid ? 0 : 1;
}
