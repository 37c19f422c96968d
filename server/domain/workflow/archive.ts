/**
 * Long-term validation at completion, when a TSA is configured: one revision with /DSS (certificates,
 * OCSP responses and CRLs for every signature's signer and timestamp chains) and one with a document
 * timestamp over it (PAdES B-LT, then B-LTA). Revocation URLs come from certificates, i.e. from
 * untrusted input: they are fetched through the guarded transport. The TSA is the operator's choice.
 */
import {
  appendDss,
  gatherValidationData,
  inspectCms,
  requestDocumentTimestamp,
  timestampPdf,
  verifyPdf,
  type GatherValidationDataOptions,
} from '../../../pdf/index.js';
import type { Context } from '../context.js';

export interface ArchivedRevision {
  readonly bytes: Buffer;
  readonly act: 'validation_data' | 'document_timestamp';
}

function contentsOf(pdf: Uint8Array, byteRange: readonly number[]): Buffer {
  const [, a = 0, b = 0] = byteRange;
  return Buffer.from(Buffer.from(pdf.subarray(a + 1, b - 1)).toString('latin1'), 'hex');
}

/**
 * `extra`: validation data gathered earlier (a DSC act's chain and OCSP/CRL answers), reused beside what is fetched
 * now.
 */
export async function archiveDocument(
  ctx: Context,
  bytes: Buffer,
  tsaUrl: string,
  extra?: GatherValidationDataOptions['extra'],
): Promise<ArchivedRevision[]> {
  const certs: Uint8Array[] = [];
  const ocsps: Uint8Array[] = [];
  const crls: Uint8Array[] = [];
  const vri = [];
  for (const signature of verifyPdf(bytes).signatures.filter((s) => s.kind === 'signature')) {
    const cms = inspectCms(contentsOf(bytes, signature.byteRange));
    if (!cms.signerCertificate) continue;
    const chain = [cms.signerCertificate, ...cms.certificates.filter((c) => c !== cms.signerCertificate)];
    // Missing revocation data is noted, not fatal: a private CA (the installation seal) publishes none.
    const data = await gatherValidationData({
      chain,
      tsaChain: cms.timestamp?.certificates ?? [],
      transport: ctx.transports.certificateUrls,
      requireAll: false,
      ...(extra ? { extra } : {}),
    });
    certs.push(...data.certs);
    ocsps.push(...data.ocsps);
    crls.push(...data.crls);
    vri.push({ field: signature.field, certs: data.certs, ocsps: data.ocsps, crls: data.crls });
  }
  if (certs.length === 0) return [];
  const withDss = appendDss(bytes, { certs, ocsps, crls, vri }).bytes;
  const stamped = await timestampPdf(
    withDss,
    async (digest) => (await requestDocumentTimestamp(ctx.transports.timestamps, tsaUrl, digest)).tokenDer,
  );
  return [
    { bytes: withDss, act: 'validation_data' },
    { bytes: stamped.bytes, act: 'document_timestamp' },
  ];
}
