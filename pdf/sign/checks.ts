/**
 * Refusals that must happen before a token PIN is ever asked for: an encrypted file (the reader
 * refuses it with pdf_encrypted) and a certified document whose DocMDP level forbids the act.
 *
 * DocMDP (ISO 32000-1 12.8.2.2): P=1 no changes at all, so no further signature and no form filling;
 * P=2 form filling and signing are allowed (that includes creating the new signature field we sign
 * into, as Acrobat and pyHanko accept); P=3 also annotations.
 * A /DSS revision and a document timestamp are not refused at P=1: ISO 32000-2 12.8.2.2.2 exempts
 * DSS and document time-stamp updates from DocMDP restrictions (they are how a certified
 * document is kept verifiable, PAdES B-LTA), so only signing with a key and form filling are.
 */
import { MoharError } from '../../common/errors.js';
import { docMdpPermission } from '../acroform.js';
import { PdfReader } from '../document.js';
import { refuseSignedRepair } from '../write/damaged.js';

export type DocumentAct = 'sign' | 'fill' | 'dss' | 'timestamp';

/** Throws document_locked when the document's certification forbids `act`. */
export function assertActAllowed(reader: PdfReader, act: DocumentAct): void {
  const p = docMdpPermission(reader);
  if (p === 1 && (act === 'sign' || act === 'fill')) {
    throw new MoharError(
      'document_locked',
      act === 'sign'
        ? 'The document is certified with "no changes allowed" (DocMDP P=1): it cannot take another signature.'
        : 'The document is certified with "no changes allowed" (DocMDP P=1): its form fields cannot be filled.',
      { extra: { docMdpPermission: 1 } },
    );
  }
}

/**
 * Opens `bytes` and checks that a signature can be added (not encrypted, not locked by DocMDP P=1, not
 * a damaged file whose earlier signatures a new revision would make uncheckable). Call it before asking
 * for a PIN; signPdf and prepareSignature do it too.
 */
export function checkSignable(bytes: Uint8Array): PdfReader {
  const reader = PdfReader.open(bytes);
  assertActAllowed(reader, 'sign');
  refuseSignedRepair(reader);
  return reader;
}
