/**
 * signPades checks its own output before returning it (issue 26 point 11), as the server's revision guard
 * does for the acts it judges: a signature must never break one that was already in the document.
 *
 * - the input is a byte prefix of the output;
 * - the output's cross-reference sections chain back to the input's (strict validators find each earlier
 *   signature's revision through that chain);
 * - every signature of the input still verifies (verifyPdf) with nothing new after it beyond what signing
 *   adds: no `other` or `annotations` change, no broken digest, no problem it did not have in the input.
 *
 * Cost: nothing when the input carries no signature (the usual first signature). Otherwise one verifyPdf
 * of the output, which checks each CMS once (the earlier bytes are identical, so an earlier signature's
 * digest and CMS cannot have changed; checking them once tells a broken one apart from a new problem).
 * Only when an earlier signature has some problem in the output is the input verified as well, to tell
 * what it already had from what this signature brought.
 */
import { MoharError } from '../../common/errors.js';
import { PdfReader } from '../document.js';
import { verifyPdf, type SignatureReport } from '../verify/index.js';
import { findSignatures, type FoundSignature } from '../verify/signatures.js';
import { assertPrefix } from '../write/incremental.js';

const offending = (report: SignatureReport): string[] =>
  report.changedObjects
    .filter((o) => o.class === 'other' || o.class === 'annotations')
    .map((o) => (o.num === 0 ? o.reason : `object ${o.num}: ${o.reason}`));

/** What is wrong with one signature in a report: its broken digest or CMS, its problems, the changes it forbids. */
function troubles(report: SignatureReport): string[] {
  const out: string[] = [];
  if (!report.digestValid) out.push('its digest no longer matches the signed bytes');
  if (!report.signatureValid) out.push('its CMS signature does not verify');
  return [...out, ...report.problems, ...offending(report)];
}

const sameRange = (a: readonly number[], b: readonly number[]): boolean =>
  a.length === b.length && a.every((n, i) => n === b[i]);

function chainProblem(before: PdfReader, after: PdfReader): string | null {
  if (after.xref.reconstructed) return 'the new cross-reference data cannot be read without rebuilding it';
  const last = before.xref.sections[0]?.offset;
  if (last !== undefined && !after.xref.sections.some((s) => s.offset === last)) {
    return 'the new revision does not chain (/Prev) to the earlier cross-reference data';
  }
  return null;
}

function failed(field: string, what: readonly string[]): MoharError {
  const shown = what.slice(0, 4).join('; ');
  const more = what.length > 4 ? ` (and ${what.length - 4} more)` : '';
  return new MoharError(
    'pdf_write_failed',
    `Could not write the PDF update: the new signature would break the earlier signature "${field}": ${shown}${more}. ` +
      'Nothing was written.',
    { extra: { signature: field, changes: what } },
  );
}

/**
 * Throws pdf_write_failed (nothing is returned, nothing written) when `output` breaks a signature that
 * `input` carried; see the module comment.
 */
export function assertEarlierSignaturesKept(input: Uint8Array, output: Uint8Array): void {
  assertPrefix(input, output);
  const before = PdfReader.open(input);
  const earlier: FoundSignature[] = findSignatures(before);
  if (earlier.length === 0) return;
  const chain = chainProblem(before, PdfReader.open(output));
  if (chain) throw failed(earlier[earlier.length - 1]!.fieldName, [chain]);

  const now = verifyPdf(output).signatures;
  let was: SignatureReport[] | undefined;
  for (const sig of earlier) {
    const report = now.find((r) => sameRange(r.byteRange, sig.byteRange));
    if (!report) throw failed(sig.fieldName, ['the signature is no longer found in the document']);
    const found = troubles(report);
    if (found.length === 0) continue;
    was ??= verifyPdf(input).signatures;
    const old = was.find((r) => sameRange(r.byteRange, sig.byteRange));
    const known = new Set(old ? troubles(old) : []);
    const fresh = found.filter((t) => !known.has(t));
    if (fresh.length > 0) throw failed(sig.fieldName, fresh);
  }
}
