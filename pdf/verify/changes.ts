/**
 * What changed after a signed revision: the difference analysis (diff.ts) of every incremental revision
 * that follows the signed bytes. Each revision is analysed once per file, however many signatures
 * precede it, and each prefix is opened once.
 */
import { isMoharError } from '../../common/errors.js';
import { PdfReader } from '../document.js';
import { onlyWhitespace, type RevisionMark } from '../xref-repair.js';
import { summariseClass, type ChangeClass, type ChangedObject } from './change-class.js';
import { analyseRevision } from './diff.js';

export type { ChangeClass, ChangedObject } from './change-class.js';

export interface ChangeReport {
  /** The worst class of change after the signed bytes. */
  readonly class: ChangeClass;
  readonly objects: readonly ChangedObject[];
}

/**
 * Bytes that no revision makes part of the document (nothing but whitespace may follow the last "%%EOF"): objects
 * appended without a cross-reference section, a revision whose startxref points back into earlier bytes, garbage.
 * A reader that repairs files may still show what they hold, so they are a change of their own.
 */
function unreferenced(from: number, to: number, mark: RevisionMark | undefined): ChangedObject {
  const why = !mark
    ? 'no cross-reference section and no "startxref … %%EOF" covers them'
    : `their startxref ${mark.startxref} points back into earlier bytes, not to a cross-reference section of their own`;
  return { num: 0, class: 'other', reason: `${to - from} bytes after byte ${from} belong to no revision: ${why}` };
}

export class RevisionChanges {
  private readonly readers = new Map<number, PdfReader>();
  private readonly segments = new Map<string, ChangedObject[]>();

  constructor(
    private readonly bytes: Uint8Array,
    whole: PdfReader,
  ) {
    this.readers.set(bytes.length, whole);
  }

  private readerAt(length: number): PdfReader {
    let reader = this.readers.get(length);
    if (!reader) {
      reader = PdfReader.open(this.bytes.subarray(0, length));
      this.readers.set(length, reader);
    }
    return reader;
  }

  private segment(from: number, to: number): ChangedObject[] {
    const key = `${from}-${to}`;
    let objects = this.segments.get(key);
    if (!objects) {
      try {
        objects = analyseRevision(this.readerAt(from), this.readerAt(to));
      } catch (error) {
        if (!isMoharError(error) || error.code === 'pdf_too_complex') throw error;
        objects = [
          { num: 0, class: 'other', reason: `the revision ending at byte ${to} cannot be read (${error.message})` },
        ];
      }
      this.segments.set(key, objects);
    }
    return objects;
  }

  /** Classifies everything the file adds after `signedLength` bytes, revision by revision. */
  after(signedLength: number): ChangeReport {
    const { bytes } = this;
    if (signedLength >= bytes.length || onlyWhitespace(bytes.subarray(signedLength))) {
      return { class: 'none', objects: [] };
    }
    const whole = this.readers.get(bytes.length)!;
    const ends = [...new Set([...whole.revisions.map((r) => r.end), bytes.length])]
      .filter((end) => end > signedLength)
      .sort((a, b) => a - b);
    const objects: ChangedObject[] = [];
    let from = signedLength;
    for (const end of ends) {
      if (!onlyWhitespace(bytes.subarray(from, end))) {
        const mark = whole.revisions.find((r) => r.end === end);
        if (mark && mark.startxref >= from) objects.push(...this.segment(from, end));
        else objects.push(unreferenced(from, end, mark));
      }
      from = end;
    }
    return { class: summariseClass(objects), objects };
  }
}
