/**
 * The certificate of completion as the completion job issues it: the same checks, content and seal as
 * createCompletionCertificate (server/audit/certificate.ts), but the PDF work (the layout and the seal's
 * signature revision up to the digest) runs in the PDF worker pool (pdf-tasks.ts prepareCertificate):
 * the job runs on the server's event loop, where that work held up every request behind it. Only the
 * seal's CMS (and the TSA round trip, B-T) stays here, as for the electronic act (sign-off-loop.ts).
 */
import {
  certificateSealing,
  checkCertificateTrail,
  completionCertificate,
  type CertificateInput,
  type CertificateOptions,
  type CompletionCertificate,
} from '../../audit/certificate.js';
import type { SignatureProvider } from '../../../pdf/index.js';
import type { Context } from '../context.js';
import { prepareOptionsOf, sealPrepared, timestampAuthority } from './sign-off-loop.js';

export async function createCertificateOffLoop(
  ctx: Context,
  input: CertificateInput,
  seal: SignatureProvider,
  options: CertificateOptions,
): Promise<CompletionCertificate> {
  const chain = checkCertificateTrail(input);
  const { layout, pades } = certificateSealing(seal, options);
  const tsa = timestampAuthority(pades);
  const prepared = await ctx.pdf.run('prepareCertificate', {
    input,
    layout,
    options: prepareOptionsOf(pades, tsa !== undefined),
  });
  // The unsealed certificate exists only in the worker: the prepared bytes up to the new revision are it.
  const bytes = await sealPrepared(prepared.bytes.subarray(0, prepared.previousLength), prepared, seal, tsa);
  return completionCertificate(input, bytes, pades.level, chain);
}
