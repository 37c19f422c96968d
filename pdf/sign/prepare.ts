/**
 * Signing in two steps around the key (a USB token, Aadhaar eSign, a seal key):
 *
 *   prepareSignature(bytes, options)  -> one incremental revision with the signature field, its
 *                                        widget and appearance, and a signature dictionary whose
 *                                        /Contents is a zero-filled hex placeholder; /ByteRange is
 *                                        already final (it is covered by the digest, so it cannot
 *                                        wait for the CMS); plus the SHA-256 digest of the ByteRange.
 *   embedSignature(prepared, cmsDer)  -> the same bytes with the CMS hex written into /Contents;
 *                                        nothing else changes, so the digest stays valid.
 *
 * Everything that can refuse (encrypted file, DocMDP P=1, unknown or already signed field, bad
 * rectangle) refuses in prepare, before the key is touched.
 */
import { createHash } from 'node:crypto';
import { MoharError } from '../../common/errors.js';
import { docMdpPermission, listSignatureFields, type SignatureFieldInfo } from '../acroform.js';
import { PdfReader } from '../document.js';
import { fieldLockProblem, fieldMdpReference, readFieldLock, type FieldLock } from '../field-lock.js';
import { rectFitsPage, viewRectToUserSpace, type Rect } from '../geometry.js';
import { PdfArray, PdfDict, PdfName, PdfRef, PdfString } from '../objects.js';
import { PageLookup } from '../page-lookup.js';
import { normalizeRotation, type PageInfo, type Rotation } from '../pages.js';
import { viewSize } from '../write/appearance.js';
import { addAnnotation, addSigFlags, editCatalog, editDictEntry, editFormFields, readFormTree } from '../write/form.js';
import { IncrementalUpdate } from '../write/incremental.js';
import { applyFieldImage, applyFormValues, type FieldImage, type FormValues } from '../prepare/fill-form.js';
import { dict, name } from '../write/serialize.js';
import { pdfDate, textString } from '../write/text.js';
import { addEmptyAppearance, addSignatureAppearance, type SignatureAppearance } from './appearance.js';
import { reissueLockedAppearances } from './lock-appearances.js';
import { assertActAllowed } from './checks.js';

/** Raw bytes reserved for the CMS when it will carry an RFC 3161 timestamp (and maybe revocation data). */
export const RESERVE_WITH_TIMESTAMP = 32 * 1024;
/** Raw bytes reserved for a plain CMS (signer certificate and chain). */
export const RESERVE_DEFAULT = 16 * 1024;
/** Raw bytes reserved for a document timestamp token. */
export const RESERVE_DOC_TIMESTAMP = 16 * 1024;

/** Where to sign. */
export type SignatureFieldChoice =
  /** An existing EMPTY signature field, by fully qualified name. */
  | { readonly name: string }
  /** A new visible field: `rect` in Mohar's view coordinates (points from the top-left of the displayed page). */
  | { readonly page: number; readonly rect: Rect; readonly name?: string }
  /** A new invisible field (/Rect [0 0 0 0], on page 1). */
  | { readonly invisible: true; readonly name?: string };

export interface PrepareOptions {
  readonly field: SignatureFieldChoice;
  /** Visible appearance (ignored for invisible fields); default text lines when omitted. */
  readonly appearance?: SignatureAppearance;
  /** Raw bytes reserved for the CMS. Default: 32 KiB with `timestamp`, else 16 KiB. */
  readonly reserve?: number;
  /** The CMS will embed a signature timestamp (sizes the default reserve). */
  readonly timestamp?: boolean;
  /** Form values to fill in the same revision as the signature (by fully qualified field name). */
  readonly formValues?: FormValues;
  /** Text fields that show a picture (a signer's initials) in the same revision (by fully qualified name). */
  readonly imageFields?: FieldImage;
  /** The claimed signing time, written as /M (PAdES: not as a CMS signing-time attribute). */
  readonly signingTime: Date;
  /** UTC offset for /M and the appearance, in minutes east of UTC (e.g. 330 for IST). Default 0. */
  readonly timeZoneOffsetMinutes?: number;
  /** /Name: the signer's name as shown (normally the certificate's common name). */
  readonly name?: string;
  readonly reason?: string;
  readonly location?: string;
  readonly contactInfo?: string;
  /**
   * Make this the document's certification signature (ISO 32000-1 12.8.2.2, DocMDP): catalog
   * /Perms /DocMDP points at the signature dictionary, whose /Reference carries the permission.
   * Only for a document that carries no signature yet (the certification must be the first).
   */
  readonly certify?: { readonly permission: DocMdpLevel };
  /**
   * The fields this signature locks (FieldMDP, ISO 32000-1 12.8.2.4): written as a /Reference with
   * /TransformMethod /FieldMDP in the signature dictionary, so that every validator reports a later change of
   * a locked field. Default: the signed field's /Lock dictionary, when it has one (as pyHanko and Acrobat do).
   */
  readonly lock?: FieldLock;
  /**
   * Re-issue the appearance of the fields the lock covers (lock-appearances.ts), so that pyHanko 0.25.1 does not
   * report the lock broken by any later revision. It is form filling of those fields (unchanged look and value):
   * the act's policy must allow it (`PreparedSignature.reissuedFields` names them). Default false.
   */
  readonly reissueLockedAppearances?: boolean;
}

/** DocMDP /P: 1 no changes; 2 form filling and signing; 3 also annotations. */
export type DocMdpLevel = 1 | 2 | 3;

export interface DocumentTimestampOptions {
  readonly reserve?: number;
  /** Name of the new invisible field (default "DocTimeStamp1", "DocTimeStamp2", ...). */
  readonly fieldName?: string;
}

export interface PreparedSignature {
  /** The whole file with the new revision; /Contents still zeros. */
  readonly bytes: Buffer;
  /** [0, a, b, c]: the signed bytes are [0, a) and [b, b + c); the gap is "<hex>" of /Contents. */
  readonly byteRange: readonly [number, number, number, number];
  /** Offset of the first hex digit of /Contents (just after "<"). */
  readonly contentsOffset: number;
  /** Number of hex digits available (2 x the reserved raw bytes). */
  readonly contentsLength: number;
  /** SHA-256 of the ByteRange bytes: what the CMS message-digest attribute (or TSA imprint) must hold. */
  readonly digest: Uint8Array;
  /** Fully qualified name of the signature field. */
  readonly fieldName: string;
  /** Length of the input: the prefix that must stay identical. */
  readonly previousLength: number;
  /** Fields whose appearance this revision re-issued for the lock (`reissueLockedAppearances`); absent: none. */
  readonly reissuedFields?: readonly string[];
}

const BYTE_RANGE_PLACEHOLDER = '**********';

interface Target {
  readonly fieldName: string;
  /** Sets /V on the field and makes the widget(s); called once the signature dictionary exists. */
  readonly attach: (sigRef: PdfRef) => void;
  /** The existing field's /Lock: what signing it shall lock. */
  readonly fieldLock?: FieldLock | null;
}

function checkReserve(reserve: number): void {
  if (!Number.isInteger(reserve) || reserve < 1024 || reserve > 4 * 1024 * 1024) {
    throw new MoharError(
      'bad_request',
      `The signature reserve must be a whole number of bytes from 1024 to 4 MiB; got ${reserve}.`,
    );
  }
}

/**
 * A prepared signature as two pieces, the input bytes themselves and the new revision (signPdf's form): the file
 * is never copied whole, its digest is taken over the pieces as they are.
 */
export interface PreparedPieces extends Omit<PreparedSignature, 'bytes'> {
  /** The input, untouched: the prefix of the signed file. */
  readonly original: Uint8Array;
  /** The new revision, /Contents still zeros; the signature is written into it. */
  readonly revision: Buffer;
}

/** Prepares a PAdES signature (/SubFilter /ETSI.CAdES.detached). See the module comment. */
export function prepareSignature(bytes: Uint8Array, options: PrepareOptions): PreparedSignature {
  return wholeFile(prepareSignaturePieces(bytes, options));
}

/** prepareSignature, the file left in its two pieces. */
export function prepareSignaturePieces(bytes: Uint8Array, options: PrepareOptions): PreparedPieces {
  const reserve = options.reserve ?? (options.timestamp ? RESERVE_WITH_TIMESTAMP : RESERVE_DEFAULT);
  checkReserve(reserve);
  if (!(options.signingTime instanceof Date) || Number.isNaN(options.signingTime.getTime())) {
    throw new MoharError('bad_request', 'signingTime must be a valid Date.');
  }
  const reader = PdfReader.open(bytes);
  assertActAllowed(reader, 'sign');
  const update = new IncrementalUpdate(reader);
  if (options.formValues && Object.keys(options.formValues).length > 0) {
    applyFormValues(update, reader, options.formValues);
  }
  if (options.imageFields && options.imageFields.fields.length > 0) {
    applyFieldImage(update, reader, options.imageFields);
  }
  // Only the pages signing touches are read (issue 30): a full walk costs most of the time on long documents.
  const pages = new PageLookup(reader);
  const offset = options.timeZoneOffsetMinutes ?? 0;

  const sig = dict({
    Type: name('Sig'),
    Filter: name('Adobe.PPKLite'),
    SubFilter: name('ETSI.CAdES.detached'),
  });
  if (options.certify) assertCertifiable(reader, pages, options.certify.permission);
  const chosen = chooseTarget(reader, update, pages, options.field, 'Signature', (box) =>
    addSignatureAppearance(update, box, options.appearance ?? {}, {
      name: options.name,
      reason: options.reason,
      location: options.location,
      signingTime: options.signingTime,
      timeZoneOffsetMinutes: offset,
    }),
  );
  const placeholders = addPlaceholders(update, sig, reserve);
  const target = options.certify ? certification(update, chosen) : chosen;
  const lock = options.lock ?? chosen.fieldLock ?? null;
  const references = signatureReferences(reader, options, lock);
  if (references.length > 0) sig.set('Reference', new PdfArray(references));
  const reissued = lock && options.reissueLockedAppearances ? reissueLockedAppearances(update, lock) : [];
  sig.set('M', new PdfString(Buffer.from(pdfDate(options.signingTime, offset), 'latin1'), false));
  if (options.name) sig.set('Name', textString(options.name));
  if (options.reason) sig.set('Reason', textString(options.reason));
  if (options.location) sig.set('Location', textString(options.location));
  if (options.contactInfo) sig.set('ContactInfo', textString(options.contactInfo));
  sig.set('Prop_Build', dict({ App: dict({ Name: name('Mohar') }) }));
  return { ...finish(update, sig, placeholders, target, 3), reissuedFields: reissued };
}

/**
 * Prepares a document timestamp (/Type /DocTimeStamp, /SubFilter /ETSI.RFC3161) in a new
 * invisible field, for PAdES B-LTA. The digest goes to the TSA as the message imprint; the
 * TimeStampToken (DER ContentInfo) is then embedded with embedSignature.
 */
export function prepareDocumentTimestamp(bytes: Uint8Array, options: DocumentTimestampOptions = {}): PreparedSignature {
  return wholeFile(prepareDocumentTimestampPieces(bytes, options));
}

/** prepareDocumentTimestamp, the file left in its two pieces. */
export function prepareDocumentTimestampPieces(
  bytes: Uint8Array,
  options: DocumentTimestampOptions = {},
): PreparedPieces {
  const reserve = options.reserve ?? RESERVE_DOC_TIMESTAMP;
  checkReserve(reserve);
  const reader = PdfReader.open(bytes);
  assertActAllowed(reader, 'timestamp');
  const update = new IncrementalUpdate(reader);
  const pages = new PageLookup(reader);
  const sig = dict({
    Type: name('DocTimeStamp'),
    Filter: name('Adobe.PPKLite'),
    SubFilter: name('ETSI.RFC3161'),
  });
  const field: SignatureFieldChoice = options.fieldName
    ? { invisible: true, name: options.fieldName }
    : { invisible: true };
  const target = chooseTarget(reader, update, pages, field, 'DocTimeStamp', () => addEmptyAppearance(update));
  const placeholders = addPlaceholders(update, sig, reserve);
  return { ...finish(update, sig, placeholders, target, 3), reissuedFields: [] };
}

/**
 * A certification must be the first signature of the document and its only DocMDP one
 * (ISO 32000-1 12.8.2.2.1); certifying over an existing signature would also claim authorship of
 * content someone else signed. Refused before the key is touched.
 */
function assertCertifiable(reader: PdfReader, pages: PageLookup, permission: DocMdpLevel): void {
  if (![1, 2, 3].includes(permission)) {
    throw new MoharError('bad_request', `The DocMDP permission must be 1, 2 or 3; got ${String(permission)}.`);
  }
  if (docMdpPermission(reader) !== null) {
    throw new MoharError(
      'certification_not_allowed',
      'The document is already certified (catalog /Perms /DocMDP): it cannot be certified again.',
    );
  }
  const signed = listSignatureFields(reader, pages)
    .filter((f) => f.signed)
    .map((f) => `"${f.name}"`);
  if (signed.length > 0) {
    throw new MoharError(
      'certification_not_allowed',
      `The document already carries a signature (${signed.join(', ')}): a certification must be its first signature.`,
    );
  }
}

/**
 * The signature references of the new signature dictionary (written after the placeholders, so /ByteRange and
 * /Contents still come first): the DocMDP one of a certification, then the FieldMDP one of a lock; both when a
 * certification also locks fields (as pyHanko writes them). /V 1.2 is the transform version of ISO 32000-1; no
 * /DigestMethod (deprecated in ISO 32000-2).
 */
function signatureReferences(reader: PdfReader, options: PrepareOptions, lock: FieldLock | null): PdfDict[] {
  const out: PdfDict[] = [];
  if (options.certify) {
    out.push(
      dict({
        Type: name('SigRef'),
        TransformMethod: name('DocMDP'),
        TransformParams: dict({ Type: name('TransformParams'), P: options.certify.permission, V: name('1.2') }),
      }),
    );
  }
  if (lock) {
    const problem = fieldLockProblem(lock);
    if (problem) throw new MoharError('bad_request', `The field lock is not usable: ${problem}.`);
    const catalog = reader.trailer.get('Root');
    if (!(catalog instanceof PdfRef)) {
      throw new MoharError('invalid_pdf', 'The file is not a readable PDF: the trailer /Root is not a reference.');
    }
    out.push(fieldMdpReference(lock, catalog));
  }
  return out;
}

/** The catalog's /Perms /DocMDP of a certification, pointing at the signature dictionary once it has its number. */
function certification(update: IncrementalUpdate, target: Target): Target {
  return {
    fieldName: target.fieldName,
    attach: (sigRef) => {
      target.attach(sigRef);
      const perms = editDictEntry(update, editCatalog(update), 'Perms', () => dict({}));
      perms.set('DocMDP', sigRef);
    },
  };
}

interface Placeholders {
  readonly byteRange: PdfArray;
  readonly contents: PdfString;
}

/** /ByteRange and /Contents go first, so nothing before them in the object can look like them. */
function addPlaceholders(update: IncrementalUpdate, sig: PdfDict, reserve: number): Placeholders {
  const byteRange = new PdfArray([
    0,
    new PdfName(BYTE_RANGE_PLACEHOLDER),
    new PdfName(BYTE_RANGE_PLACEHOLDER),
    new PdfName(BYTE_RANGE_PLACEHOLDER),
  ]);
  const contents = new PdfString(new Uint8Array(reserve), true);
  sig.set('ByteRange', byteRange);
  sig.set('Contents', contents);
  update.track(byteRange);
  update.track(contents);
  return { byteRange, contents };
}

function finish(
  update: IncrementalUpdate,
  sig: PdfDict,
  ph: Placeholders,
  target: Target,
  sigFlags: number,
): Omit<PreparedPieces, 'reissuedFields'> {
  const sigRef = update.add(sig);
  target.attach(sigRef);
  addSigFlags(update, sigFlags);
  const { original, revision, spans, previousLength } = update.writeRevision();
  const br = spans.get(ph.byteRange);
  const ct = spans.get(ph.contents);
  if (!br || !ct) {
    throw new MoharError(
      'pdf_write_failed',
      'Could not write the PDF update: the signature placeholders were not written.',
    );
  }
  // Both placeholders are written into the new revision, never into the old bytes.
  if (br.start < previousLength || ct.start < previousLength) {
    throw new MoharError(
      'pdf_write_failed',
      'Could not write the PDF update: the signature placeholders are not in the new revision.',
    );
  }
  // The gap is the whole "<...>" string.
  const a = ct.start;
  const b = ct.end;
  const byteRange: [number, number, number, number] = [0, a, b, previousLength + revision.length - b];
  let text = `[${byteRange.join(' ')}`;
  const width = br.end - br.start;
  if (text.length + 1 > width) {
    throw new MoharError(
      'pdf_write_failed',
      'Could not write the PDF update: the /ByteRange placeholder is too small.',
    );
  }
  text = text.padEnd(width - 1, ' ') + ']';
  revision.write(text, br.start - previousLength, 'latin1');
  if (revision[a - previousLength] !== 0x3c || revision[b - 1 - previousLength] !== 0x3e) {
    throw new MoharError('pdf_write_failed', 'Could not write the PDF update: /Contents is not where it was written.');
  }
  // The ByteRange is [0, a) and [b, end): the old bytes whole, then the revision around the gap.
  const digest = createHash('sha256')
    .update(original)
    .update(revision.subarray(0, a - previousLength))
    .update(revision.subarray(b - previousLength))
    .digest();
  return {
    original,
    revision,
    byteRange,
    contentsOffset: a + 1,
    contentsLength: b - a - 2,
    digest,
    fieldName: target.fieldName,
    previousLength,
  };
}

/** The pieces as one file (a copy of the input), for the two-step flows that hold the prepared bytes elsewhere. */
function wholeFile({ original, revision, ...rest }: PreparedPieces): PreparedSignature {
  const input = Buffer.from(original.buffer, original.byteOffset, original.byteLength);
  return { ...rest, bytes: Buffer.concat([input, revision]) };
}

/** SHA-256 over the two ByteRange segments. */
export function byteRangeDigest(bytes: Uint8Array, byteRange: readonly [number, number, number, number]): Uint8Array {
  const [o1, l1, o2, l2] = byteRange;
  return createHash('sha256')
    .update(bytes.subarray(o1, o1 + l1))
    .update(bytes.subarray(o2, o2 + l2))
    .digest();
}

/** The signed bytes themselves (the two ByteRange segments), e.g. for a signer that hashes on its own. */
export function byteRangeData(prepared: Pick<PreparedSignature, 'bytes' | 'byteRange'>): Buffer {
  const [o1, l1, o2, l2] = prepared.byteRange;
  return Buffer.concat([prepared.bytes.subarray(o1, o1 + l1), prepared.bytes.subarray(o2, o2 + l2)]);
}

/**
 * Writes the DER CMS (or timestamp token) into the /Contents placeholder of a copy of the prepared
 * bytes, after checking that they still have the digest taken in prepare (for the two-step flow, where
 * the prepared bytes were held elsewhere meanwhile). Throws signature_too_large, before writing
 * anything, when it does not fit the reserve.
 */
export function embedSignature(prepared: PreparedSignature, cmsDer: Uint8Array): Buffer {
  return writeContents(prepared, cmsDer, true);
}

/**
 * embedSignature for signPdf / timestampPdf, whose prepared bytes never leave the call: writes into
 * prepared.bytes themselves (no copy of the file) and does not hash the ByteRange a second time.
 */
export function embedSignatureInPlace(prepared: PreparedSignature, cmsDer: Uint8Array): Buffer {
  return writeContents(prepared, cmsDer, false);
}

let zeros = Buffer.alloc(0);

/** `length` ASCII "0" digits: what an empty /Contents placeholder holds (a shared buffer, never written to). */
function zeroDigits(length: number): Buffer {
  if (zeros.length < length) zeros = Buffer.alloc(length, 0x30);
  return zeros.subarray(0, length);
}

function writeContents(prepared: PreparedSignature, cmsDer: Uint8Array, standalone: boolean): Buffer {
  const { bytes, contentsOffset, contentsLength } = prepared;
  assertContentsWritable(bytes, contentsOffset, contentsLength, cmsDer);
  if (standalone && !Buffer.from(byteRangeDigest(bytes, prepared.byteRange)).equals(Buffer.from(prepared.digest))) {
    throw new MoharError(
      'pdf_write_failed',
      'Could not embed the signature: the prepared bytes changed after their digest was taken.',
    );
  }
  const out = standalone ? Buffer.from(bytes) : bytes;
  out.write(Buffer.from(cmsDer).toString('hex').toUpperCase(), contentsOffset, 'latin1');
  return out;
}

/**
 * embedSignature for signPdf / timestampPdf's pieces: writes the signature into the new revision, which holds
 * /Contents (checked in prepare); the input bytes are not touched, so they stay the signed file's prefix.
 */
export function embedSignatureInRevision(prepared: PreparedPieces, cmsDer: Uint8Array): void {
  const offset = prepared.contentsOffset - prepared.previousLength;
  assertContentsWritable(prepared.revision, offset, prepared.contentsLength, cmsDer);
  prepared.revision.write(Buffer.from(cmsDer).toString('hex').toUpperCase(), offset, 'latin1');
}

/**
 * Throws signature_too_large, before writing anything, when `cmsDer` does not fit the reserve, and
 * pdf_write_failed unless `bytes` hold an empty "<00…>" placeholder of `length` digits at `offset`.
 */
function assertContentsWritable(bytes: Uint8Array, offset: number, length: number, cmsDer: Uint8Array): void {
  if (cmsDer.length === 0) throw new MoharError('invalid_signature_data', 'The signature to embed is empty.');
  if (cmsDer.length * 2 > length) {
    throw new MoharError(
      'signature_too_large',
      `The signature is ${cmsDer.length} bytes but only ${length / 2} bytes were reserved in the PDF; prepare again with a larger reserve (at least ${cmsDer.length}).`,
      { extra: { signatureBytes: cmsDer.length, reservedBytes: length / 2 } },
    );
  }
  if (offset < 1 || bytes[offset - 1] !== 0x3c || bytes[offset + length] !== 0x3e) {
    throw new MoharError(
      'pdf_write_failed',
      'Could not embed the signature: the prepared bytes do not have /Contents where expected.',
    );
  }
  const current = Buffer.from(bytes.buffer, bytes.byteOffset + offset, length);
  // One memcmp against a run of "0" digits (a byte-by-byte loop over the 32-64 KB placeholder cost ~0.5 ms per
  // signature).
  if (!current.equals(zeroDigits(length))) {
    throw new MoharError(
      'pdf_write_failed',
      'Could not embed the signature: the /Contents placeholder is not empty (already signed?).',
    );
  }
}

// ---------------------------------------------------------------- the field

function chooseTarget(
  reader: PdfReader,
  update: IncrementalUpdate,
  pages: PageLookup,
  choice: SignatureFieldChoice,
  defaultPrefix: string,
  makeAppearance: (box: { width: number; height: number; rotation: Rotation }) => PdfRef,
): Target {
  if ('page' in choice || 'invisible' in choice) return newField(update, pages, choice, defaultPrefix, makeAppearance);
  return existingField(reader, update, pages, choice.name, makeAppearance);
}

function existingField(
  reader: PdfReader,
  update: IncrementalUpdate,
  pages: PageLookup,
  fieldName: string,
  makeAppearance: (box: { width: number; height: number; rotation: Rotation }) => PdfRef,
): Target {
  const fields = listSignatureFields(reader, pages);
  const empty = fields.filter((f) => !f.signed).map((f) => f.name);
  const list = empty.length > 0 ? empty.map((n) => `"${n}"`).join(', ') : 'none';
  const field: SignatureFieldInfo | undefined = fields.find((f) => f.name === fieldName);
  if (!field) {
    throw new MoharError(
      'signature_field_not_found',
      `The PDF has no signature field "${fieldName}". Empty signature fields: ${list}.`,
      { extra: { emptyFields: empty } },
    );
  }
  if (field.signed) {
    throw new MoharError(
      'signature_field_signed',
      `The signature field "${fieldName}" is already signed. Empty signature fields: ${list}.`,
      { extra: { emptyFields: empty } },
    );
  }
  if (!field.ref) {
    throw new MoharError(
      'pdf_unsupported',
      `The signature field "${fieldName}" is not an object of its own and cannot be signed into.`,
    );
  }
  const fieldRef = new PdfRef(field.ref.num, field.ref.gen);
  const fieldDict = update.resolve(fieldRef);
  return {
    fieldName,
    fieldLock: fieldDict instanceof PdfDict ? readFieldLock((o) => update.resolve(o), fieldDict.get('Lock')) : null,
    attach: (sigRef) => {
      const fd = update.editDict(fieldRef);
      fd.set('V', sigRef);
      for (const w of field.widgets) {
        if (!w.ref || !w.userRect) continue;
        const wd = w.ref.num === fieldRef.num ? fd : update.editDict(new PdfRef(w.ref.num, w.ref.gen));
        const [x0, y0, x1, y1] = w.userRect;
        if (x1 - x0 < 1 || y1 - y0 < 1) continue; // invisible: keep what it has
        const page = w.pageNumber ? pages.at(w.pageNumber - 1) : undefined;
        const mk = update.resolve(wd.get('MK'));
        const mkR = mk instanceof PdfDict ? update.resolve(mk.get('R')) : null;
        const rotation = mkR !== null ? normalizeRotation(mkR) : (page?.rotate ?? 0);
        const size = viewSize(w.userRect, rotation);
        const ap = makeAppearance({ ...size, rotation });
        wd.set('AP', dict({ N: ap }));
      }
    },
  };
}

function newField(
  update: IncrementalUpdate,
  pages: PageLookup,
  choice:
    | { readonly page: number; readonly rect: Rect; readonly name?: string }
    | { readonly invisible: true; readonly name?: string },
  defaultPrefix: string,
  makeAppearance: (box: { width: number; height: number; rotation: Rotation }) => PdfRef,
): Target {
  const tree = readFormTree(update);
  let fieldName = choice.name;
  if (fieldName !== undefined) {
    if (fieldName === '' || fieldName.includes('.')) {
      throw new MoharError('bad_request', `A new signature field needs a name without dots; got "${fieldName}".`);
    }
    if (tree.nodes.has(fieldName)) {
      throw new MoharError('field_name_taken', `The PDF already has a form field named "${fieldName}".`);
    }
  } else {
    for (let i = 1; ; i++) {
      if (!tree.nodes.has(`${defaultPrefix}${i}`)) {
        fieldName = `${defaultPrefix}${i}`;
        break;
      }
    }
  }
  const name_ = fieldName;
  let page: PageInfo;
  let userRect: [number, number, number, number];
  let visible: boolean;
  if ('page' in choice) {
    const p = pages.at(choice.page - 1);
    if (!Number.isInteger(choice.page) || !p) {
      throw new MoharError(
        'page_out_of_range',
        `Page ${choice.page} is outside the document (pages 1 to ${pages.all().length}).`,
      );
    }
    const r = choice.rect;
    if (!(r.width > 0 && r.height > 0)) {
      throw new MoharError('empty_rectangle', 'The signature rectangle needs a width and a height greater than 0.');
    }
    if (!rectFitsPage(p, r)) {
      throw new MoharError(
        'outside_page',
        `The rectangle (x ${r.x}, y ${r.y}, width ${r.width}, height ${r.height}) is not inside page ${choice.page}.`,
      );
    }
    page = p;
    userRect = [...viewRectToUserSpace(p, r)] as [number, number, number, number];
    visible = true;
  } else {
    page = pages.at(0) ?? pages.all()[0]!;
    userRect = [0, 0, 0, 0];
    visible = false;
  }
  return {
    fieldName: name_,
    attach: (sigRef) => {
      const rotation = page.rotate;
      const ap = visible ? makeAppearance({ ...viewSize(userRect, rotation), rotation }) : addEmptyAppearance(update);
      const widget = dict({
        Type: name('Annot'),
        Subtype: name('Widget'),
        FT: name('Sig'),
        T: textString(name_),
        V: sigRef,
        F: visible ? 4 : 132, // Print; invisible: Print + Locked, as Acrobat writes it
        Rect: new PdfArray(userRect.map((n) => Math.round(n * 1000) / 1000)),
        P: page.ref,
        AP: dict({ N: ap }),
      });
      if (visible && rotation !== 0) widget.set('MK', dict({ R: rotation }));
      const ref = update.add(widget);
      editFormFields(update).items.push(ref);
      addAnnotation(update, page.ref, ref);
    },
  };
}
