/**
 * The terminal form fields a PDF carries, by fully qualified name (ISO 32000-1 12.7.3.2): what a FieldMDP
 * /Lock or /Reference names. Used at send to lock the fields of an upload that no recipient holds (issue 26:
 * a field of the sender's own could otherwise be filled after completion, over the text it covers).
 * Widgets merged into their field count as the field; kids without /T are widgets, not fields.
 */
import { PdfReader } from './document.js';
import type { PdfLimits } from './limits.js';
import { IncrementalUpdate } from './write/incremental.js';
import { readFormTree } from './write/form.js';

/** Fully qualified names of every terminal field of `bytes` (signature fields included), in /Fields order. */
export function listFormFieldNames(bytes: Uint8Array, limits?: Partial<PdfLimits>): string[] {
  // readFormTree walks the tree as an update would see it; nothing is written.
  const tree = readFormTree(new IncrementalUpdate(PdfReader.open(bytes, limits)));
  return [...new Set(tree.fields.map((f) => f.name))];
}
