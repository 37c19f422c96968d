/**
 * What changed after a signed revision: the difference analysis (diff.ts) of every incremental revision
 * that follows the signed bytes. Each revision is analysed once per file, however many signatures
 * precede it, and each prefix is opened once.
 */
import { isMoharError } from '../../common/errors.js';
import { PdfReader } from '../document.js';
import { summariseClass, type ChangeClass, type ChangedObject } from './change-class.js';
import { analyseRevision } from './diff.js';

export type { ChangeClass, ChangedObject } from './change-class.js';

export interface ChangeReport {
  /** The worst class of change after the signed bytes. */
  readonly class: ChangeClass;
  readonly objects: readonly ChangedObject[];
}

const isBlank = (bytes: Uint8Array): boolean => bytes.every((b) => b <= 0x20);

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
    if (signedLength >= bytes.length || isBlank(bytes.subarray(signedLength))) return { class: 'none', objects: [] };
    const whole = this.readers.get(bytes.length)!;
    const ends = [...new Set([...whole.revisions.map((r) => r.end), bytes.length])]
      .filter((end) => end > signedLength)
      .sort((a, b) => a - b);
    const objects: ChangedObject[] = [];
    let from = signedLength;
    let analysed = false;
    for (const end of ends) {
      if (!isBlank(bytes.subarray(from, end))) {
        objects.push(...this.segment(from, end));
        analysed = true;
      }
      from = end;
    }
    if (!analysed) {
      objects.push({
        num: 0,
        class: 'other',
        reason: 'bytes appended after the signature that add no readable revision',
      });
    }
    return { class: summariseClass(objects), objects };
  }
}
