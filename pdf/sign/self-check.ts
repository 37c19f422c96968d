/**
 * signPades checks its own output before returning it (issue 26 point 11), as the server's revision guard
 * does for the acts it judges: a new signature must never break one the document already carried.
 *
 * - the input is a byte prefix of the output;
 * - the output's cross-reference sections chain back to the input's (strict validators find each earlier
 *   signature's revision through that chain);
 * - what the appended revisions change is, for every signature of the input, nothing verifyPdf would hold
 *   against it: no `other` or `annotations` change, nothing its DocMDP level forbids.
 *
 * That is all of verifyPdf's verdict that an appended revision can move. The earlier bytes are identical, so
 * an earlier signature's digest, CMS and timestamp verify exactly as they did in the input (a problem it
 * already had stays its own, not this signature's); only "what changed after it" grows, by the appended
 * revisions, which are analysed here with verifyPdf's own difference analysis (RevisionChanges). So no CMS is
 * verified and no file-sized digest taken: on a 50 MB file with one earlier signature this costs 20-40 ms where
 * a whole verifyPdf of the output costs 0.7-1.1 s (0.2-0.3 s against 0.7 s on 2,000 pages); with no earlier
 * signature (the usual first signature) only the input's signature fields are looked up.
 *
 * A FieldMDP lock an earlier signature holds is judged here as verifyPdf judges it (field-locks.ts).
 */
import { MoharError } from '../../common/errors.js';
import { PdfReader } from '../document.js';
import { allowedByDocMdp, RevisionChanges, type ChangedObject } from '../verify/index.js';
import { fieldLockProblems, signatureLocks } from '../verify/field-locks.js';
import { findSignatures } from '../verify/signatures.js';
import { assertPrefix } from '../write/incremental.js';

function chainProblem(before: PdfReader, after: PdfReader): string | null {
  if (after.xref.reconstructed) return 'the new cross-reference data cannot be read without rebuilding it';
  const last = before.xref.sections[0]?.offset;
  if (last !== undefined && !after.xref.sections.some((s) => s.offset === last)) {
    return 'the new revision does not chain (/Prev) to the earlier cross-reference data';
  }
  return null;
}

const label = (o: ChangedObject): string => (o.num === 0 ? o.reason : `object ${o.num}: ${o.reason}`);

function failed(fields: readonly string[], changes: readonly string[]): MoharError {
  const names = fields.map((f) => `"${f}"`).join(', ');
  const shown = changes.slice(0, 4).join('; ');
  const more = changes.length > 4 ? ` (and ${changes.length - 4} more)` : '';
  return new MoharError(
    'pdf_write_failed',
    `Could not write the PDF update: the new signature would break the earlier signature${fields.length > 1 ? 's' : ''} ` +
      `${names}: ${shown}${more}. Nothing was written.`,
    { extra: { signatures: [...fields], changes: [...changes] } },
  );
}

/**
 * Throws pdf_write_failed when `signed` (`input` plus the revisions of one signing act) breaks a signature
 * that `input` carried; see the module comment. `prefixAsserted`: the caller knows `input` to be the output's
 * prefix (signPdf's output starts with the input itself, untouched), so the byte comparison, a whole-file pass,
 * is not made.
 */
export function assertEarlierSignaturesKept(
  input: Uint8Array,
  signed: Uint8Array | (() => Uint8Array),
  { prefixAsserted = false }: { readonly prefixAsserted?: boolean } = {},
): void {
  // Given as a function, the output is made only when needed (signPdf keeps it in pieces).
  const outputOf = typeof signed === 'function' ? signed : () => signed;
  if (!prefixAsserted) assertPrefix(input, outputOf());
  const before = PdfReader.open(input);
  const earlier = findSignatures(before);
  if (earlier.length === 0) return;
  const output = outputOf();
  const after = PdfReader.open(output);
  const chain = chainProblem(before, after);
  if (chain) {
    throw failed(
      earlier.map((sig) => sig.fieldName),
      [chain],
    );
  }

  const appended = new RevisionChanges(output, after).after(input.length).objects;
  const beyond = appended.filter((o) => o.class === 'other' || o.class === 'annotations');
  const broken = new Map<string, ChangedObject[]>();
  const lockProblems = new Map<string, string[]>();
  for (const sig of earlier) {
    const level = sig.docMdp;
    const forbidden =
      level === null
        ? beyond
        : appended.filter((o) => o.class !== 'structure' && (beyond.includes(o) || !allowedByDocMdp(level, o.class)));
    if (forbidden.length > 0) broken.set(sig.fieldName, forbidden);
    const locked = fieldLockProblems(signatureLocks(before, sig.dict, sig.field), appended);
    if (locked.length > 0) lockProblems.set(sig.fieldName, locked);
  }
  if (broken.size === 0 && lockProblems.size === 0) return;
  const changes = [...new Set([...broken.values()].flat())].map(label);
  throw failed(
    [...new Set([...broken.keys(), ...lockProblems.keys()])],
    [...changes, ...[...lockProblems.values()].flat()],
  );
}
