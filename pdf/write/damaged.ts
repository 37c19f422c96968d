/**
 * Appending to a damaged file. When the reader had to rebuild the cross-reference data by scanning
 * (`xref.reconstructed`: a /Prev that is not a number, offsets that point nowhere, a missing section), the
 * update writes a complete section without /Prev (incremental.ts), so the result is whole again for every
 * reader. But its earlier revisions are then no longer reachable through the chain of sections, and that
 * chain is how strict validators (pyHanko, Acrobat) find the revision each signature covers: an earlier
 * signature could no longer be checked by anyone. Pointing /Prev at the damaged section does not help
 * either, since the damage is what breaks the chain. So an unsigned damaged file is repaired, and a signed
 * one is refused with a way out.
 */
import { MoharError } from '../../common/errors.js';
import { listSignatureFields } from '../acroform.js';
import type { PdfReader } from '../document.js';
import { PageLookup } from '../page-lookup.js';

/** Throws pdf_unsupported when the file's xref was rebuilt and the file carries signatures. */
export function refuseSignedRepair(reader: PdfReader): void {
  if (!reader.xref.reconstructed) return;
  const signed = listSignatureFields(reader, new PageLookup(reader)).filter((f) => f.signed);
  if (signed.length === 0) return;
  const names = signed.slice(0, 3).map((f) => `"${f.name}"`);
  const more = signed.length > names.length ? ` and ${signed.length - names.length} more` : '';
  throw new MoharError(
    'pdf_unsupported',
    `The PDF carries signatures (${names.join(', ')}${more}) but its cross-reference data is damaged: Mohar ` +
      'could only read it by rebuilding that data, and a new revision would have to replace it, so that no ' +
      'validator could check the earlier signatures any more. Ask for an undamaged copy of the signed PDF. If ' +
      'the earlier signatures need not stay verifiable, repair the file first (for example `qpdf in.pdf out.pdf`, ' +
      'or "Print to PDF" in a viewer) and sign the repaired copy.',
    { extra: { signatures: signed.map((f) => f.name) } },
  );
}
