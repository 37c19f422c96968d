/** A human-readable rendering of a VerifyReport, for `mohar verify`. */
import type { ChangeClass } from './change-class.js';
import type { VerifyReport } from './verify.js';

const CHANGES: Record<ChangeClass, string> = {
  none: 'nothing',
  ltv: 'validation data (DSS) and timestamps only (ltv)',
  metadata: 'document metadata (/Info, XMP, /Version), validation data and timestamps only (metadata)',
  signing: 'signatures and validation data only (signing)',
  form_filling: 'form filling, signatures and validation data only (form_filling)',
  annotations: 'ANNOTATIONS added or changed (annotations)',
  other: 'OTHER CHANGES (other)',
};

export function formatReport(report: VerifyReport): string {
  const lines = [`File: ${report.size} bytes, ${report.revisions} revision(s), SHA-256 ${report.sha256}`];
  if (report.signatures.length === 0) lines.push('No signatures.');
  for (const s of report.signatures) {
    lines.push('');
    lines.push(
      `Signature ${s.index} (${s.kind === 'document_timestamp' ? 'document timestamp' : 'signature'}) in field "${s.field}": ${s.valid ? 'VALID' : 'INVALID'}`,
    );
    if (s.signer) {
      lines.push(
        `  Signer: ${s.signer.subject}${s.signer.email ? ` <${s.signer.email}>` : ''}`,
        `  Issuer: ${s.signer.issuer}`,
      );
    }
    if (s.signingTime) lines.push(`  Signing time claimed (/M): ${s.signingTime}`);
    if (s.timestamp) lines.push(`  Timestamp: ${s.timestamp.genTime} (${s.timestamp.valid ? 'valid' : 'INVALID'})`);
    lines.push(
      `  Covers: revision ${s.revision ?? '?'}${s.coversWholeDocument ? ' (the whole document)' : ''}; byte range ${s.byteRange.join(' ')}`,
    );
    lines.push(
      `  Digest: ${s.digestValid ? 'matches' : 'DOES NOT MATCH'}; signature: ${s.signatureValid ? 'verifies' : 'DOES NOT VERIFY'}`,
    );
    lines.push(`  Changed after it: ${CHANGES[s.changesAfter]}`);
    for (const o of s.changedObjects.filter((c) => ['other', 'annotations', 'metadata'].includes(c.class))) {
      lines.push(`    ${o.class}: ${o.num === 0 ? 'trailer' : `object ${o.num}`}: ${o.reason}`);
    }
    if (s.padesLevel) lines.push(`  PAdES level: ${s.padesLevel}`);
    else if (s.notes.length > 0) lines.push(`  Not PAdES baseline (still valid): ${s.notes.join('; ')}`);
    for (const problem of s.problems) lines.push(`  Problem: ${problem}`);
  }
  lines.push('', report.valid ? 'All signatures are valid.' : 'NOT all signatures are valid.');
  return lines.join('\n');
}
