/**
 * The attacker's revision, built by hand: ONE incremental update over the prepared bytes that signs
 * the signer's own field with a real CMS (like signPades would) AND carries whatever the attack adds
 * or redefines. Hooks let a case bend every step an attacker controls: the objects of the revision,
 * the signature dictionary, the bytes after the /Contents gap (xref tricks), the /ByteRange written
 * versus the ranges actually hashed, and what stands in the gap (hex CMS, nothing, a literal string).
 */
import { createHash } from 'node:crypto';
import { createSignedData } from '../../../pdf/cms/index.js';
import { listSignatureFields } from '../../../pdf/acroform.js';
import { PdfReader } from '../../../pdf/document.js';
import { PdfArray, PdfDict, PdfName, PdfRef, PdfString } from '../../../pdf/objects.js';
import { getPages, type Box } from '../../../pdf/pages.js';
import { addSignatureAppearance } from '../../../pdf/sign/appearance.js';
import type { SignatureProvider } from '../../../pdf/ports.js';
import { addSigFlags } from '../../../pdf/write/form.js';
import { IncrementalUpdate } from '../../../pdf/write/incremental.js';
import { cloneDict, dict, name } from '../../../pdf/write/serialize.js';
import { pdfDate } from '../../../pdf/write/text.js';

/** The objects an attack aims at, as found in the prepared bytes. */
export interface Targets {
  readonly reader: PdfReader;
  readonly catalog: PdfRef;
  readonly page1: PdfRef;
  readonly page2: PdfRef;
  /** Page 1's content stream. */
  readonly content: PdfRef;
  /** Page 1's form XObject /Fm0 (draws the price). */
  readonly fm0: PdfRef;
  /** The font /F1 every page uses. */
  readonly f1: PdfRef;
  /** The signer's signature field and its (first) widget. */
  readonly field: PdfRef;
  readonly widget: PdfRef;
  readonly widgetRect: Box;
}

/** Where things landed in the written file; handed to the hooks. */
export interface Layout {
  /** Offset of "<" of /Contents and just past its ">": the exact gap. */
  readonly a: number;
  readonly b: number;
  /** Offset of the new revision's first byte. */
  readonly revisionStart: number;
  /** Offset of every object the revision writes. */
  readonly offsets: ReadonlyMap<number, number>;
  readonly startxref: number;
  readonly sigNum: number;
}

export type Ranges = [number, number, number, number];

export interface RevisionHooks {
  /** Adds or redefines objects in the same revision (runs after the signature dictionary has its number). */
  readonly attack?: (update: IncrementalUpdate, t: Targets) => void;
  /** Edits the signature dictionary before it is written. */
  readonly sig?: (sig: PdfDict) => void;
  /** Rewrites the bytes after the gap (never before it) before anything is hashed. */
  readonly tail?: (bytes: Buffer, layout: Layout) => Buffer;
  /** The /ByteRange text to write (null: remove the entry) and the ranges really hashed. Default: the exact gap. */
  readonly byteRange?: (layout: Layout, length: number) => { readonly text: string | null; readonly signed: Ranges };
  /** Raw bytes reserved for the CMS; 0 writes an empty /Contents <> and no CMS. Default 16 KiB. */
  readonly reserve?: number;
  /** The CMS as a literal string "(...)" of hex digits instead of a hex string. */
  readonly literalContents?: boolean;
}

export function findTargets(bytes: Uint8Array, fieldName: string): Targets {
  const reader = PdfReader.open(bytes);
  const pages = getPages(reader);
  const page = pages[0]!.dict;
  const res = reader.getDict(page, 'Resources');
  const ref = (value: unknown, what: string): PdfRef => {
    if (!(value instanceof PdfRef)) throw new Error(`shadow corpus: ${what} is not an indirect object`);
    return value;
  };
  const field = listSignatureFields(reader, pages).find((f) => f.name === fieldName);
  if (!field?.ref || !field.widgets[0]?.ref || !field.widgets[0].userRect) {
    throw new Error(`shadow corpus: no signature field ${fieldName}`);
  }
  return {
    reader,
    catalog: ref(reader.trailer.get('Root'), 'the catalog'),
    page1: ref(pages[0]!.ref, 'page 1'),
    page2: ref(pages[1]!.ref, 'page 2'),
    content: ref(page.get('Contents'), 'page 1 /Contents'),
    fm0: ref(reader.getDict(res, 'XObject')?.get('Fm0'), '/Fm0'),
    f1: ref(reader.getDict(res, 'Font')?.get('F1'), '/F1'),
    field: new PdfRef(field.ref.num, field.ref.gen),
    widget: new PdfRef(field.widgets[0].ref.num, field.widgets[0].ref.gen),
    widgetRect: field.widgets[0].userRect,
  };
}

/** A copy of an existing dictionary object, to redefine it in the attacker's revision. */
export function copyOf(t: Targets, ref: PdfRef): PdfDict {
  const value = t.reader.getObject(ref);
  if (!(value instanceof PdfDict)) throw new Error(`shadow corpus: object ${ref.num} is not a dictionary`);
  return cloneDict(value);
}

const PLACEHOLDER = '**********';
const SIGNING_TIME = new Date('2026-11-25T06:00:00Z');

/** Prepared bytes + one revision: the signer's field signed with `signer`, and the attack. */
export async function signedRevision(
  prepared: Uint8Array,
  fieldName: string,
  signer: SignatureProvider,
  hooks: RevisionHooks = {},
): Promise<Buffer> {
  const t = findTargets(prepared, fieldName);
  const update = new IncrementalUpdate(t.reader);
  const reserve = hooks.reserve ?? 16 * 1024;
  const byteRange = new PdfArray([0, new PdfName(PLACEHOLDER), new PdfName(PLACEHOLDER), new PdfName(PLACEHOLDER)]);
  const contents = new PdfString(new Uint8Array(reserve), true);
  const sig = dict({
    Type: name('Sig'),
    Filter: name('Adobe.PPKLite'),
    SubFilter: name('ETSI.CAdES.detached'),
    ByteRange: byteRange,
    Contents: contents,
  });
  sig.set('M', new PdfString(Buffer.from(pdfDate(SIGNING_TIME, 0), 'latin1'), false));
  update.track(byteRange);
  update.track(contents);
  const sigRef = update.allocate();
  hooks.attack?.(update, t);
  hooks.sig?.(sig);
  update.set(sigRef, sig);

  const fieldDict = update.editDict(t.field);
  fieldDict.set('V', sigRef);
  const widgetDict = t.widget.num === t.field.num ? fieldDict : update.editDict(t.widget);
  const [x0, y0, x1, y1] = t.widgetRect;
  widgetDict.set(
    'AP',
    dict({
      N: addSignatureAppearance(
        update,
        { width: x1 - x0, height: y1 - y0, rotation: 0 },
        {},
        { name: 'Asha Attacker', signingTime: SIGNING_TIME },
      ),
    }),
  );
  addSigFlags(update, 3);

  const written = update.write();
  const br = written.spans.get(byteRange);
  const ct = written.spans.get(contents);
  if (!br || !ct) throw new Error('shadow corpus: placeholders not written');
  const layout: Layout = {
    a: ct.start,
    b: ct.end,
    revisionStart: written.previousLength,
    offsets: written.offsets,
    startxref: written.startxref,
    sigNum: sigRef.num,
  };
  const bytes = hooks.tail ? hooks.tail(written.bytes, layout) : written.bytes;
  if (!bytes.subarray(0, layout.b).equals(written.bytes.subarray(0, layout.b))) {
    throw new Error('shadow corpus: a tail hook changed bytes before the gap');
  }

  const exact: Ranges = [0, layout.a, layout.b, bytes.length - layout.b];
  const chosen = hooks.byteRange?.(layout, bytes.length) ?? { text: `[${exact.join(' ')}]`, signed: exact };
  writeByteRange(bytes, br, chosen.text);
  const [o1, l1, o2, l2] = chosen.signed;
  const digest = createHash('sha256')
    .update(bytes.subarray(o1, o1 + l1))
    .update(bytes.subarray(o2, o2 + l2))
    .digest();
  if (reserve > 0) {
    const cms = await createSignedData({ messageDigest: digest, signer });
    const hex = Buffer.from(cms).toString('hex').toUpperCase();
    if (hex.length > layout.b - layout.a - 2) throw new Error('shadow corpus: CMS larger than the reserve');
    bytes.write(hex, layout.a + 1, 'latin1');
  }
  if (hooks.literalContents) {
    bytes[layout.a] = 0x28; // (
    bytes[layout.b - 1] = 0x29; // )
  }
  return bytes;
}

/** Writes the /ByteRange text into its placeholder (same width); null blanks out the whole entry. */
function writeByteRange(bytes: Buffer, span: { start: number; end: number }, text: string | null): void {
  const width = span.end - span.start;
  if (text === null) {
    const key = bytes.lastIndexOf('/ByteRange', span.start, 'latin1');
    bytes.fill(0x20, key, span.end);
    return;
  }
  if (text.length > width) {
    throw new Error(`shadow corpus: /ByteRange text "${text}" is wider than its placeholder (${width})`);
  }
  bytes.write(
    text.endsWith(']') ? text.slice(0, -1).padEnd(width - 1, ' ') + ']' : text.padEnd(width, ' '),
    span.start,
    'latin1',
  );
}

/** Prepared (or signed) bytes + one hand-built revision without a signature: for changes after signing. */
export function plainRevision(
  bytes: Uint8Array,
  fieldName: string,
  change: (update: IncrementalUpdate, t: Targets) => void,
): Buffer {
  const t = findTargets(bytes, fieldName);
  const update = new IncrementalUpdate(t.reader);
  change(update, t);
  return update.write().bytes;
}
