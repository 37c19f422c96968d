/**
 * What a corpus case is, and the small tools cases share: content streams that draw the shadow text,
 * opaque appearance boxes, and a rewrite of the revision's classic xref table (for the incremental
 * saving attacks that play with the table itself).
 */
import { PdfArray, type PdfObject, type PdfRef } from '../../../pdf/objects.js';
import type { SignatureProvider } from '../../../pdf/ports.js';
import { verifyPdf } from '../../../pdf/verify/index.js';
import { helveticaFont, resources } from '../../../pdf/write/appearance.js';
import type { IncrementalUpdate } from '../../../pdf/write/incremental.js';
import { dict, makeStream, name } from '../../../pdf/write/serialize.js';
import { SHADOW_TEXT } from './document.js';
import type { Layout } from './revision.js';

export interface CaseContext {
  readonly prepared: Buffer;
  readonly signingField: string;
  readonly signer: SignatureProvider;
  /** A text field of the signer's and one of another recipient's (form-filling cases). */
  readonly fillableField: string;
  readonly foreignField: string;
  /** DER certificates for a /DSS (signer first). */
  readonly certificates: readonly Uint8Array[];
}

/** The attack classes of the papers (NDSS 2021 shadow attacks; CCS 2019 USF/ISA/SWA) plus catalog tricks. */
export type AttackClass = 'hide' | 'replace' | 'hide-and-replace' | 'ISA' | 'SWA' | 'USF' | 'catalog' | 'policy';

export interface ShadowCase {
  readonly name: string;
  readonly attack: AttackClass;
  readonly build: (ctx: CaseContext) => Promise<Buffer>;
  /** What the judge's refusal must name (the offending object class or the broken signature part). */
  readonly reason: RegExp;
  /** Fillable fields for the judge's policy (server uploads never have any). */
  readonly fillable?: (ctx: CaseContext) => readonly string[];
  /** The attack keeps the file well-formed (qpdf --check passes). */
  readonly wellFormed: boolean;
  /**
   * Where the attack lives: in the objects the signer's own signature covers (a verifier that judges
   * only what changed AFTER a signature sees nothing unless an earlier signature or certification
   * exists), in the signature dictionary (/ByteRange, /Contents), or in bytes after the signature.
   */
  readonly where: 'signing-revision' | 'signature-dictionary' | 'after-signature';
  /** Known gaps of the code under test: those checks run as todo tests, named in the issue's report. */
  readonly gaps?: { readonly judge?: string; readonly verifier?: string; readonly upload?: string };
  /** The case needs a field of another recipient: the server's one-signer upload envelope has none. */
  readonly needsOtherRecipient?: boolean;
}

export interface BenignCase {
  readonly name: string;
  /** Every appended revision is judged against the bytes before it (a DSS may come as a revision of its own). */
  readonly build: (ctx: CaseContext) => Promise<Buffer>;
  readonly fillable?: (ctx: CaseContext) => readonly string[];
  /** Also a legitimate upload through the server's PUT …/signed (policy: signing field + LTV only). */
  readonly upload: boolean;
}

/** A content stream printing the shadow text in large type, over a white box that hides the price. */
export function shadowContent(text = SHADOW_TEXT): Buffer {
  return Buffer.from(`q 1 g 60 660 480 60 re f Q BT /F1 18 Tf 72 680 Td (${text}) Tj ET`, 'latin1');
}

/** An opaque appearance stream (white box, optionally text on it) for an annotation of `w` x `h`. */
export function boxAppearance(update: IncrementalUpdate, w: number, h: number, text?: string): PdfRef {
  const draw = `q 1 g 0 0 ${w} ${h} re f Q${text ? ` BT /Helv 14 Tf 0 g 6 ${h / 2 - 5} Td (${text}) Tj ET` : ''}`;
  const d = dict({
    Type: name('XObject'),
    Subtype: name('Form'),
    BBox: new PdfArray([0, 0, w, h]),
    Resources: resources(text ? { Helv: update.add(helveticaFont()) } : {}),
  });
  return update.add(makeStream(d, Buffer.from(draw, 'latin1')));
}

/** An annotation over the price line (x 60..540, y 660..720) with an opaque appearance, added to page 1. */
export function overPrice(
  update: IncrementalUpdate,
  page: PdfRef,
  subtype: string,
  text: string | undefined,
  extra: Record<string, PdfObject> = {},
): PdfRef {
  const annot = dict({
    Type: name('Annot'),
    Subtype: name(subtype),
    Rect: new PdfArray([60, 660, 540, 720]),
    F: 4,
    P: page,
    AP: dict({ N: boxAppearance(update, 480, 60, text) }),
  });
  for (const [k, v] of Object.entries(extra)) annot.set(k, v);
  return update.add(annot);
}

export interface XrefRow {
  offset: number;
  gen: number;
  free: boolean;
}

/**
 * Rewrites the classic xref table the revision ends with (it starts at layout.startxref, so startxref
 * stays right); `edit` gets the revision's rows and may add, change or drop some.
 */
export function rewriteXref(bytes: Buffer, layout: Layout, edit: (rows: Map<number, XrefRow>) => void): Buffer {
  const start = layout.startxref;
  const end = bytes.indexOf('trailer', start, 'latin1');
  const table = bytes.subarray(start, end).toString('latin1');
  if (!table.startsWith('xref')) throw new Error('shadow corpus: the revision does not end with a classic xref table');
  const rows = new Map<number, XrefRow>();
  const lines = table
    .split('\n')
    .slice(1)
    .filter((l) => l.trim() !== '');
  for (let i = 0; i < lines.length;) {
    const [first, count] = lines[i]!.trim().split(/\s+/).map(Number) as [number, number];
    for (let k = 0; k < count; k++) {
      const [offset, gen, kind] = lines[i + 1 + k]!.trim().split(/\s+/);
      rows.set(first + k, { offset: Number(offset), gen: Number(gen), free: kind === 'f' });
    }
    i += 1 + count;
  }
  edit(rows);
  const nums = [...rows.keys()].sort((x, y) => x - y);
  let out = 'xref\n';
  for (let i = 0; i < nums.length;) {
    let j = i;
    while (j + 1 < nums.length && nums[j + 1] === nums[j]! + 1) j++;
    out += `${nums[i]} ${j - i + 1}\n`;
    for (let k = i; k <= j; k++) {
      const r = rows.get(nums[k]!)!;
      out += `${String(r.offset).padStart(10, '0')} ${String(r.gen).padStart(5, '0')} ${r.free ? 'f' : 'n'} \n`;
    }
    i = j + 1;
  }
  return Buffer.concat([bytes.subarray(0, start), Buffer.from(out, 'latin1'), bytes.subarray(end)]);
}

/** The prefixes of `bytes` at the end of each revision appended after `prior` (the last is `bytes`). */
export function appendedPrefixes(prior: Uint8Array, bytes: Buffer, revisionEnds: readonly number[]): Buffer[] {
  const ends = revisionEnds.filter((end) => end > prior.length);
  if (ends[ends.length - 1] !== bytes.length) ends.push(bytes.length);
  return ends.map((end) => bytes.subarray(0, end));
}

/** verifyPdf flags the upload: a signature invalid or with problems, or something after it that is not allowed. */
export function verifierFlags(bytes: Buffer): { flagged: boolean; summary: string } {
  let report;
  try {
    report = verifyPdf(bytes);
  } catch (error) {
    return { flagged: true, summary: `unreadable: ${(error as Error).message}` };
  }
  const flagged =
    !report.valid ||
    report.signatures.some(
      (s) => s.problems.length > 0 || s.changesAfter === 'other' || s.changesAfter === 'annotations',
    );
  return {
    flagged,
    summary: JSON.stringify(
      report.signatures.map((s) => ({
        field: s.field,
        valid: s.valid,
        changesAfter: s.changesAfter,
        problems: s.problems,
      })),
    ),
  };
}
