/**
 * The Document Security Store (ETSI EN 319 142-1 5.4, ISO 32000-2 12.8.4.3): validation data
 * (certificates, OCSP responses, CRLs) appended in ONE incremental revision after the signatures,
 * for PAdES B-LT; a document timestamp over it then gives B-LTA.
 *
 * - The catalog gets a new version whose /DSS is a new dictionary: the entries of an existing
 *   /DSS are kept (the same object references), new data is added as streams; data already present
 *   (same bytes, old or new) is not stored twice.
 * - /VRI: per signature, keyed by the upper-case hex SHA-1 of the signature's /Contents bytes as
 *   stored in the file (zero padding included, as Adobe and iText compute it; for a document
 *   timestamp the DER token without padding, as iText does). An existing entry with the same key
 *   is merged.
 * - /Extensions /ESIC (BaseVersion 1.7, ExtensionLevel 5) is declared for files older than PDF 2.0,
 *   as PAdES asks when a DSS is used in PDF 1.7.
 * Not refused on a DocMDP P=1 document: see checks.ts.
 */
import { createHash } from 'node:crypto';
import { MoharError } from '../../common/errors.js';
import { PdfReader } from '../document.js';
import { PdfArray, PdfDict, PdfName, PdfRef, PdfStream, PdfString, type PdfObject } from '../objects.js';
import { currentCatalog, editCatalog, readFormTree } from '../write/form.js';
import { IncrementalUpdate, assertPrefix } from '../write/incremental.js';
import { cloneDict, dict, makeStream, name } from '../write/serialize.js';
import { assertActAllowed } from './checks.js';

export interface DssValidationData {
  /** DER X.509 certificates (signer, chain, TSA chain, OCSP responder certificates). */
  readonly certs?: readonly Uint8Array[];
  /** DER OCSPResponse structures. */
  readonly ocsps?: readonly Uint8Array[];
  /** DER CRLs. */
  readonly crls?: readonly Uint8Array[];
}

export interface VriEntry extends DssValidationData {
  /** The signature this data validates, by its field's fully qualified name... */
  readonly field?: string;
  /** ...or by the raw bytes of its /Contents (as stored, padding included). */
  readonly contents?: Uint8Array;
}

export interface DssInput extends DssValidationData {
  /** Per-signature validation data (also added to the document-wide arrays). */
  readonly vri?: readonly VriEntry[];
}

export interface DssResult {
  readonly bytes: Buffer;
  /** Entry counts of the new /DSS (old entries included). */
  readonly counts: { readonly certs: number; readonly ocsps: number; readonly crls: number; readonly vri: number };
}

/** VRI key of a signature: upper-case hex SHA-1 of its /Contents bytes. */
export function vriKey(contents: Uint8Array): string {
  return createHash('sha1').update(contents).digest('hex').toUpperCase();
}

type Kind = 'Certs' | 'OCSPs' | 'CRLs';

/** Appends a /DSS revision. Throws when nothing is given or a VRI signature cannot be found. */
export function appendDss(bytes: Uint8Array, input: DssInput): DssResult {
  const reader = PdfReader.open(bytes);
  assertActAllowed(reader, 'dss');
  const update = new IncrementalUpdate(reader);
  const catalog = currentCatalog(update);
  const oldDss = update.resolve(catalog.get('DSS'));
  const old = oldDss instanceof PdfDict ? oldDss : new PdfDict();

  // Existing entries, kept as they are; their content hashes let us skip duplicates.
  const arrays: Record<Kind, PdfObject[]> = { Certs: [], OCSPs: [], CRLs: [] };
  const known: Record<Kind, Map<string, PdfRef>> = { Certs: new Map(), OCSPs: new Map(), CRLs: new Map() };
  for (const kind of ['Certs', 'OCSPs', 'CRLs'] as const) {
    const arr = update.resolve(old.get(kind));
    if (!(arr instanceof PdfArray)) continue;
    for (const item of arr.items) {
      arrays[kind].push(item);
      const s = update.resolve(item);
      if (item instanceof PdfRef && s instanceof PdfStream) {
        try {
          known[kind].set(sha256(reader.decodeStream(s)), item);
        } catch {
          // an undecodable old entry stays, it just cannot be matched
        }
      }
    }
  }
  const addAll = (kind: Kind, items: readonly Uint8Array[] | undefined): PdfRef[] => {
    const refs: PdfRef[] = [];
    for (const der of items ?? []) {
      if (der.length === 0) throw new MoharError('bad_request', `An empty ${kind} entry cannot be stored in the DSS.`);
      const h = sha256(der);
      let ref = known[kind].get(h);
      if (!ref) {
        ref = update.add(makeStream(new PdfDict(), der, { compress: true }));
        known[kind].set(h, ref);
        arrays[kind].push(ref);
      }
      if (!refs.some((r) => r.num === ref!.num)) refs.push(ref);
    }
    return refs;
  };
  addAll('Certs', input.certs);
  addAll('OCSPs', input.ocsps);
  addAll('CRLs', input.crls);

  // VRI: old entries kept, new ones merged by key.
  const oldVri = update.resolve(old.get('VRI'));
  const vri = oldVri instanceof PdfDict ? cloneDict(oldVri) : new PdfDict();
  const signatures = input.vri && input.vri.length > 0 ? signatureContents(update) : new Map<string, Uint8Array>();
  for (const entry of input.vri ?? []) {
    let contents = entry.contents;
    if (!contents && entry.field !== undefined) {
      contents = signatures.get(entry.field);
      if (!contents) {
        const names = [...signatures.keys()].map((n) => `"${n}"`).join(', ') || 'none';
        throw new MoharError(
          'signature_field_not_found',
          `The PDF has no signed field "${entry.field}" to attach validation data to. Signed fields: ${names}.`,
        );
      }
    }
    if (!contents) {
      throw new MoharError('bad_request', 'A VRI entry needs the signature field name or its /Contents bytes.');
    }
    const key = vriKey(contents);
    const previous = update.resolve(vri.get(key));
    const e = previous instanceof PdfDict ? cloneDict(previous) : dict({ Type: name('VRI') });
    const merge = (k: string, refs: PdfRef[]): void => {
      if (refs.length === 0) return;
      const cur = update.resolve(e.get(k));
      const items = cur instanceof PdfArray ? [...cur.items] : [];
      for (const r of refs) if (!items.some((i) => i instanceof PdfRef && i.num === r.num)) items.push(r);
      e.set(k, new PdfArray(items));
    };
    merge('Cert', addAll('Certs', entry.certs));
    merge('OCSP', addAll('OCSPs', entry.ocsps));
    merge('CRL', addAll('CRLs', entry.crls));
    vri.set(key, e);
  }

  const counts = { certs: arrays.Certs.length, ocsps: arrays.OCSPs.length, crls: arrays.CRLs.length, vri: vri.size };
  if (counts.certs + counts.ocsps + counts.crls === 0 && vri.size === 0) {
    throw new MoharError('bad_request', 'There is no validation data to store in the DSS.');
  }
  const dss = cloneDict(old);
  dss.set('Type', name('DSS'));
  for (const kind of ['Certs', 'OCSPs', 'CRLs'] as const) {
    dss.set(kind, arrays[kind].length > 0 ? new PdfArray(arrays[kind]) : null);
  }
  dss.set('VRI', vri.size > 0 ? vri : null);

  const cat = editCatalog(update);
  cat.set('DSS', update.add(dss));
  declareEsic(update, reader, cat);
  const out = update.write().bytes;
  assertPrefix(bytes, out);
  return { bytes: out, counts };
}

function sha256(b: Uint8Array): string {
  return createHash('sha256').update(b).digest('hex');
}

/** Signed signature fields -> the bytes a VRI key is computed from. */
function signatureContents(update: IncrementalUpdate): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  for (const f of readFormTree(update).fields) {
    if (f.type !== 'Sig') continue;
    const v = update.resolve(f.dict.get('V'));
    if (!(v instanceof PdfDict)) continue;
    const c = update.resolve(v.get('Contents'));
    if (!(c instanceof PdfString)) continue;
    const isDocTimestamp =
      update.resolve(v.get('SubFilter')) instanceof PdfName &&
      (update.resolve(v.get('SubFilter')) as PdfName).name === 'ETSI.RFC3161';
    out.set(f.name, isDocTimestamp ? stripDerPadding(c.bytes) : c.bytes);
  }
  return out;
}

/** The DER object at the start of `b` (a SEQUENCE with a definite length), without the zero padding. */
function stripDerPadding(b: Uint8Array): Uint8Array {
  if (b.length < 2 || b[0] !== 0x30) return b;
  let len = b[1]!;
  let header = 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || b.length < 2 + n) return b;
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + b[2 + i]!;
    header = 2 + n;
  }
  return header + len <= b.length ? b.subarray(0, header + len) : b;
}

function declareEsic(update: IncrementalUpdate, reader: PdfReader, cat: PdfDict): void {
  const version = (v: string | undefined): number => (v ? Number(v) : NaN);
  const catVersion = update.resolve(cat.get('Version'));
  const effective = Math.max(
    version(reader.headerVersion) || 0,
    catVersion instanceof PdfName ? version(catVersion.name) || 0 : 0,
  );
  if (effective >= 2) return;
  const ext = update.resolve(cat.get('Extensions'));
  const extensions = ext instanceof PdfDict ? cloneDict(ext) : dict({ Type: name('Extensions') });
  const esic = update.resolve(extensions.get('ESIC'));
  const level = esic instanceof PdfDict ? update.resolve(esic.get('ExtensionLevel')) : null;
  if (typeof level === 'number' && level >= 5) return;
  extensions.set('ESIC', dict({ Type: name('DeveloperExtensions'), BaseVersion: name('1.7'), ExtensionLevel: 5 }));
  cat.set('Extensions', extensions);
}
