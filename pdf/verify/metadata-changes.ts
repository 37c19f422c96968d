/**
 * The `metadata` class of the difference analysis: what an honest signing tool updates beside its signature
 * (pyHanko's `sign addsig`, Acrobat): the trailer's /Info dictionary, the catalog's XMP /Metadata stream and
 * catalog /Version. Recognised as pyHanko's DocInfoRule, MetadataUpdateRule and CatalogModificationRule do
 * (all at its lowest level, LTA_UPDATES): an /Info that is a dictionary, either a new object or the old /Info
 * rewritten; an XMP stream (/Type /Metadata /Subtype /XML) of well-formed XML, either a new object the catalog
 * now points to or the old one rewritten; /Version a PDF version name. An object rewritten in place must have
 * had no other use in the signed revision (pyHanko checks every path to it): otherwise the "/Info" could be a
 * page's resources, and its rewrite would change what the page shows. Anything else stays `other`.
 */
import { DOMParser } from '@xmldom/xmldom';
import { isMoharError } from '../../common/errors.js';
import type { PdfReader } from '../document.js';
import { PdfDict, PdfName, PdfRef, PdfStream, type PdfObject } from '../objects.js';
import type { ChangedObject } from './change-class.js';
import type { DiffScope, Verdict } from './diff-rules/scope.js';
import { referencesIn } from './diff-facts.js';

const PDF_VERSIONS = new Set(['1.0', '1.1', '1.2', '1.3', '1.4', '1.5', '1.6', '1.7', '2.0']);

const metadata = (reason: string): Verdict => ({ class: 'metadata', reason });
const other = (reason: string): Verdict => ({ class: 'other', reason });

const refOf = (obj: PdfObject): PdfRef | undefined => (obj instanceof PdfRef ? obj : undefined);
const sameRef = (a: PdfRef | undefined, b: PdfRef | undefined): boolean =>
  a !== undefined && b !== undefined && a.num === b.num && a.gen === b.gen;

/**
 * Whether `text` is well-formed XML, as far as xmldom can tell (any warning or error refuses it), plus what
 * xmldom lets through: a bare "&". A DTD is refused as well: XMP carries none, and its entities are a risk.
 */
export function isWellFormedXml(text: string): boolean {
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) return false;
  if (/&(?![A-Za-z_:][\w.:-]*;|#[0-9]+;|#x[0-9A-Fa-f]+;)/.test(text)) return false;
  let problems = 0;
  try {
    const doc = new DOMParser({
      onError: () => {
        problems++;
      },
    }).parseFromString(text, 'text/xml');
    return problems === 0 && doc.documentElement !== null;
  } catch {
    return false;
  }
}

/** XML text from bytes: UTF-16 by its byte order mark, otherwise strict UTF-8 (invalid bytes are not XML). */
function xmlText(bytes: Uint8Array): string | undefined {
  const encoding =
    bytes[0] === 0xfe && bytes[1] === 0xff ? 'utf-16be' : bytes[0] === 0xff && bytes[1] === 0xfe ? 'utf-16le' : 'utf-8';
  try {
    return new TextDecoder(encoding, { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** Why `obj` is not an XMP metadata stream of well-formed XML; null when it is one. */
function xmpProblem(reader: PdfReader, obj: PdfObject): string | null {
  if (!(obj instanceof PdfStream)) return 'not a stream';
  if (reader.getName(obj.dict, 'Type') !== 'Metadata' || reader.getName(obj.dict, 'Subtype') !== 'XML') {
    return 'not /Type /Metadata /Subtype /XML';
  }
  let data: Uint8Array;
  try {
    data = reader.decodeStream(obj);
  } catch (error) {
    if (!isMoharError(error)) throw error;
    return `its data cannot be decoded (${error.message})`;
  }
  const text = xmlText(data);
  return text !== undefined && isWellFormedXml(text) ? null : 'not well-formed XML';
}

/** Objects this revision adds that `obj` refers to (an indirect /Length of a stream is its own business). */
function newObjectsIn(scope: DiffScope, obj: PdfObject): number[] {
  const holder = obj instanceof PdfStream ? obj.dict : obj;
  const length = obj instanceof PdfStream ? refOf(obj.dict.get('Length')) : undefined;
  return referencesIn(holder).filter(
    (n) => scope.added.has(n) && !(n === length?.num && typeof scope.after.reader.resolve(length) === 'number'),
  );
}

/**
 * Whether object `num` had a use in the earlier revision beyond `allowed` references held by `holder`
 * (the catalog for /Metadata; none for /Info, which only the trailer's /Info may name). Cross-reference
 * streams are trailers (each names /Root and /Info): the current trailer is checked, without its /Info.
 */
function usedElsewhere(reader: PdfReader, num: number, holder: number | undefined, allowed: number): boolean {
  const trailer = new PdfDict();
  for (const [key, value] of reader.trailer.map) if (key !== 'Info') trailer.set(key, value);
  if (referencesIn(trailer).includes(num)) return true;
  for (const [n, entry] of reader.xref.entries) {
    if (entry.type === 'free') continue;
    const obj = reader.getObject(new PdfRef(n, entry.type === 'offset' ? entry.gen : 0));
    if (obj instanceof PdfStream && reader.getName(obj.dict, 'Type') === 'XRef') continue;
    const uses = referencesIn(obj).filter((r) => r === num).length;
    if (uses > (n === holder ? allowed : 0)) return true;
  }
  return false;
}

const infoRef = (reader: PdfReader): PdfRef | undefined => refOf(reader.trailer.get('Info'));
const metadataRef = (reader: PdfReader): PdfRef | undefined => refOf(reader.catalog.get('Metadata'));
const catalogNum = (reader: PdfReader): number | undefined => refOf(reader.trailer.get('Root'))?.num;

/** The /Info dictionary, new or rewritten: a dictionary (not a stream) holding no new objects. */
function infoVerdict(scope: DiffScope, num: number, before: PdfObject | undefined, after: PdfObject): Verdict {
  const what = before === undefined ? `new document information dictionary (trailer /Info)` : `trailer /Info`;
  if (!(after instanceof PdfDict)) return other(`${what} object ${num} is not a dictionary`);
  if (before !== undefined && !(before instanceof PdfDict)) return other(`${what} object ${num} was not a dictionary`);
  const fresh = newObjectsIn(scope, after);
  if (fresh.length > 0) return other(`${what} object ${num} refers to new object ${fresh[0]}`);
  if (before !== undefined && usedElsewhere(scope.before.reader, num, undefined, 0)) {
    return other(`${what} object ${num} rewritten, but the signed revision also uses it elsewhere`);
  }
  return metadata(before === undefined ? what : `${what} (document information) updated`);
}

/** The catalog's XMP stream, new or rewritten: /Type /Metadata /Subtype /XML, well-formed XML, no new objects. */
function xmpVerdict(scope: DiffScope, num: number, before: PdfObject | undefined, after: PdfObject): Verdict {
  const what =
    before === undefined ? 'new XMP metadata stream (catalog /Metadata)' : 'XMP metadata (catalog /Metadata)';
  const problem = xmpProblem(scope.after.reader, after);
  if (problem) return other(`${what} object ${num}: ${problem}`);
  if (before !== undefined) {
    // pyHanko checks the old stream too: what is overwritten must have been XMP, not something else so named.
    const old = xmpProblem(scope.before.reader, before);
    if (old) return other(`${what} object ${num} rewritten, but the old one is ${old}`);
    if (usedElsewhere(scope.before.reader, num, catalogNum(scope.before.reader), 1)) {
      return other(`${what} object ${num} rewritten, but the signed revision also uses it elsewhere`);
    }
  }
  const fresh = newObjectsIn(scope, after);
  if (fresh.length > 0) return other(`${what} object ${num} refers to new object ${fresh[0]}`);
  return metadata(before === undefined ? what : `${what} updated`);
}

/** What an object of the document's metadata is: the trailer's /Info, or the catalog's XMP /Metadata stream. */
export type MetadataObjectKind = 'info' | 'xmp';

/**
 * Whether the object `num` this revision adds (`before` undefined) or rewrites is the document's /Info or its
 * catalog's XMP /Metadata; undefined when it is neither. A rewritten one must have been the same thing in the
 * signed revision, under the same number.
 */
export function metadataObjectKind(
  scope: DiffScope,
  num: number,
  before: PdfObject | undefined,
): MetadataObjectKind | undefined {
  const rb = scope.before.reader;
  const ra = scope.after.reader;
  const was = (ref: PdfRef | undefined, now: PdfRef | undefined): boolean =>
    now?.num === num && (before === undefined ? scope.added.has(num) : sameRef(ref, now));
  if (was(infoRef(rb), infoRef(ra))) return 'info';
  if (was(metadataRef(rb), metadataRef(ra))) return 'xmp';
  return undefined;
}

/** The verdict on the /Info or XMP object `num`, new (`before` undefined) or rewritten (metadataObjectKind). */
export function metadataObjectVerdict(
  scope: DiffScope,
  kind: MetadataObjectKind,
  num: number,
  before: PdfObject | undefined,
  after: PdfObject,
): Verdict {
  return kind === 'info' ? infoVerdict(scope, num, before, after) : xmpVerdict(scope, num, before, after);
}

/** Catalog /Version added or changed: metadata when it is a PDF version name. */
export function catalogVersionVerdict(how: string, after: PdfDict): Verdict {
  const version = after.get('Version');
  return how !== 'removed' && version instanceof PdfName && PDF_VERSIONS.has(version.name)
    ? metadata(`catalog /Version ${how} (/${version.name})`)
    : other(`catalog /Version ${how}${version instanceof PdfName ? ` (/${version.name}: not a PDF version)` : ''}`);
}

/** Catalog /Metadata added or changed: metadata when it points at a new object (judged as XMP on its own). */
export function catalogMetadataVerdict(scope: DiffScope, how: string, after: PdfDict): Verdict {
  const ref = refOf(after.get('Metadata'));
  return ref && scope.added.has(ref.num)
    ? metadata(`catalog /Metadata ${how} (new XMP metadata stream ${ref.num})`)
    : other(`catalog /Metadata ${how}${ref ? ` (object ${ref.num} is not new in this revision)` : ''}`);
}

/** Trailer /Info added or changed: it must name a new object (which the rules for new objects then judge). */
export function trailerInfoChange(after: PdfReader, added: ReadonlySet<number>, how: string): ChangedObject {
  const ref = infoRef(after);
  if (ref && added.has(ref.num)) {
    return {
      num: 0,
      class: 'metadata',
      reason: `trailer /Info ${how} (new document information dictionary ${ref.num})`,
    };
  }
  return { num: 0, class: 'other', reason: `trailer /Info ${how}${ref ? ` (object ${ref.num} is not new)` : ''}` };
}
