/**
 * `mohar sign-batch FILE`: the desktop's batch signing on the command line. FILE holds signing links
 * (https://…/sign/<token>, one a line; blank lines and # comments ignored). Every link's DSC documents are listed
 * with name and SHA-256, the PIN is read ONCE (prompt or first line of stdin), all are signed in one logged-in
 * token session and uploaded, and each result is printed. Exit code 1 when anything failed or the batch stopped.
 */
import { readFile } from 'node:fs/promises';
import { MoharError } from '../common/errors.js';
import { createDesktopSigner } from '../main/signer/index.js';
import { findModules } from '../native/index.js';
import type { Config } from '../server/config.js';
import { fetchTransport } from '../server/net/http-transport.js';
import { readSecret } from './secret-input.js';

export interface SignBatchOptions {
  module?: string[];
  token?: string;
  certId?: string;
  tsa?: string;
}

export function linksOf(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0 && !line.startsWith('#'));
}

export async function signBatchCommand(config: Config, file: string, options: SignBatchOptions): Promise<void> {
  const modulePaths =
    options.module && options.module.length > 0
      ? options.module
      : findModules({ platform: process.platform, extraPaths: [...config.pkcs11Modules] }).map((c) => c.path);
  const tsaUrl = options.tsa ?? config.tsaUrl;
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const signer = createDesktopSigner({
    modulePaths,
    pinPrompt: {
      async askPin(request) {
        out(`Token "${request.token.label}" (${request.token.moduleName}), certificate ${request.certificate.subject}`);
        if (request.finalTry) out('Careful: the token says the next wrong PIN locks it.');
        return readSecret(`PIN for ${request.documentName} (batch ${request.documentSha256.slice(0, 16)}…): `);
      },
    },
    ...(tsaUrl ? { timestamp: { tsaUrl, transport: fetchTransport() } } : {}),
  });
  try {
    const refused = signer.batch.add(linksOf(await readFile(file, 'utf8')));
    for (const link of refused) out(`not a signing link, left out: ${link}`);
    const items = await signer.batch.refresh();
    out(`${items.length} document(s):`);
    for (const item of items) {
      out(
        `  ${item.state === 'ready' ? 'to sign' : 'skipped'}  ${item.documentName || '(no document)'}  ${item.envelopeTitle}`,
      );
      if (item.documentSha256) out(`           SHA-256 ${item.documentSha256}`);
      if (item.reason) out(`           ${item.reason}`);
    }
    const choice = await chooseKey(signer, options);
    const report = await signer.batch.sign(choice);
    if (report.stoppedBy) out(`Stopped: ${report.stoppedBy.message}`);
    for (const item of report.items) {
      out(`${item.state.padEnd(7)}  ${item.documentName || item.signingUrl}${item.reason ? `: ${item.reason}` : ''}`);
    }
    out(`${report.signed} signed, ${report.failed} failed, ${report.skipped} skipped`);
    if (report.failed > 0 || report.stoppedBy) process.exitCode = 1;
  } finally {
    await signer.close();
  }
}

async function chooseKey(
  signer: ReturnType<typeof createDesktopSigner>,
  options: SignBatchOptions,
): Promise<{ slotId: string; certificateId: string }> {
  const listed = await signer.listTokens();
  if (!listed.ok) throw new MoharError('token_not_present', listed.error.message);
  const token = listed.value.find((t) => options.token === undefined || t.label === options.token);
  if (!token) {
    throw new MoharError('token_not_present', `no token${options.token ? ` labelled "${options.token}"` : ''} found`);
  }
  const usable = token.certificates.filter((c) => c.usableForSigning);
  const certificate =
    options.certId !== undefined
      ? token.certificates.find((c) => c.id === options.certId)
      : usable.length === 1
        ? usable[0]
        : undefined;
  if (!certificate) {
    throw new MoharError(
      'validation_failed',
      `choose the certificate with --cert-id; token "${token.label}" holds: ${usable.map((c) => `${c.id} (${c.commonName})`).join(', ') || 'no certificate that can sign'}`,
    );
  }
  return { slotId: token.slotId, certificateId: certificate.id };
}
