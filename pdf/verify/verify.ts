/**
 * Verifies every signature of a PDF: which revision it covers, whether its digest and signature
 * hold, what changed after it, its timestamp, and the PAdES level reached. Trust in the signer's
 * chain is not judged here (no trust store): integrity is.
 */
import { createHash } from 'node:crypto';
import { isMoharError } from '../../common/errors.js';
import { certInfo, checkTimestampToken, inspectCms } from '../cms/index.js';
import { PdfReader } from '../document.js';
import { PdfArray, PdfStream } from '../objects.js';
import { onlyWhitespace } from '../xref-repair.js';
import { allowedByDocMdp, type ChangeClass, type ChangedObject } from './change-class.js';
import { RevisionChanges } from './changes.js';
import { subFilterProblem } from './sig-shape.js';
import { byteRangeParts, findSignatures, type FoundSignature } from './signatures.js';
import type { FieldLock } from '../field-lock.js';
import { fieldLockProblems, signatureLocks } from './field-locks.js';

export type PadesLevel = 'B-B' | 'B-T' | 'B-LT' | 'B-LTA';

export interface SignerSummary {
  subject: string;
  issuer: string;
  serialNumber: string;
  email: string | null;
  notBefore: string;
  notAfter: string;
}

export interface SignatureReport {
  index: number;
  field: string;
  kind: 'signature' | 'document_timestamp';
  subFilter: string | null;
  signer: SignerSummary | null;
  name: string | null;
  reason: string | null;
  signingTime: string | null;
  byteRange: number[];
  /** 1-based revision whose end the signature covers; null when it matches none. */
  revision: number | null;
  coversWholeDocument: boolean;
  digestValid: boolean;
  signatureValid: boolean;
  timestamp: { genTime: string; valid: boolean } | null;
  /** The worst class of change in the revisions after this signature. */
  changesAfter: ChangeClass;
  /** Every object changed after this signature, with its class and the reason for it. */
  changedObjects: ChangedObject[];
  docMdp: number | null;
  /** The fields this signature locks (its FieldMDP /Reference, else its field's /Lock: see field-locks.ts). */
  fieldLock: FieldLock | null;
  padesLevel: PadesLevel | null;
  valid: boolean;
  problems: string[];
  /** Why a sound signature is not a PAdES baseline one (padesLevel null): never a reason to call it invalid. */
  notes: string[];
}

export interface VerifyReport {
  sha256: string;
  size: number;
  revisions: number;
  signatures: SignatureReport[];
  /** Every signature is valid (and there is at least one). */
  valid: boolean;
}

/** Length of the DER value at the start of `bytes` (the /Contents padding follows it). */
function derPrefix(bytes: Uint8Array): Uint8Array {
  if (bytes.length < 2 || bytes[0] !== 0x30) return bytes;
  const first = bytes[1]!;
  if (first < 0x80) return bytes.subarray(0, 2 + first);
  const count = first & 0x7f;
  let length = 0;
  for (let i = 0; i < count; i++) length = length * 256 + (bytes[2 + i] ?? 0);
  return bytes.subarray(0, Math.min(bytes.length, 2 + count + length));
}

function signerSummary(der: Uint8Array | null): SignerSummary | null {
  if (!der) return null;
  const { x509 } = certInfo(der);
  const email =
    /email:([^,\s]+)/i.exec(x509.subjectAltName ?? '')?.[1] ?? /emailAddress=([^\n,]+)/.exec(x509.subject)?.[1] ?? null;
  return {
    subject: x509.subject.split('\n').join(', '),
    issuer: x509.issuer.split('\n').join(', '),
    serialNumber: x509.serialNumber,
    email,
    notBefore: new Date(x509.validFrom).toISOString(),
    notAfter: new Date(x509.validTo).toISOString(),
  };
}

/** DER certificates stored in the final /DSS /Certs. */
function dssCertificates(reader: PdfReader): Uint8Array[] {
  const certs = reader.getArray(reader.getDict(reader.catalog, 'DSS'), 'Certs');
  if (!(certs instanceof PdfArray)) return [];
  return certs.items
    .map((item) => reader.resolve(item))
    .filter((s): s is PdfStream => s instanceof PdfStream)
    .map((s) => reader.decodeStream(s));
}

function revisionOf(reader: PdfReader, signedEnd: number): number | null {
  const index = reader.revisions.findIndex((r) => signedEnd >= r.eofOffset + 5 && signedEnd <= r.end);
  return index === -1 ? null : index + 1;
}

const DOCMDP_ALLOWS: Record<number, string> = {
  1: 'no changes',
  2: 'form filling and signing',
  3: 'form filling, signing and annotations',
};

function checkOne(
  bytes: Uint8Array,
  reader: PdfReader,
  found: FoundSignature,
  index: number,
  revisions: RevisionChanges,
): SignatureReport {
  const problems = [...found.problems];
  const notes: string[] = [];
  const [, b = 0, c = 0] = found.byteRange.slice(1);
  const signedEnd = b + c;
  // A malformed /ByteRange (found.problems) makes the signature invalid, but its digest is checked all the same.
  const wellFormed = problems.length === 0;
  const parts = byteRangeParts(bytes, found.byteRange) ?? [];
  const digest = createHash('sha256');
  for (const part of parts) digest.update(part);
  const byteRangeDigest = digest.digest();
  const isTimestamp = found.type === 'DocTimeStamp' || found.subFilter === 'ETSI.RFC3161';
  const format = subFilterProblem(found.subFilter, found.type === 'DocTimeStamp');
  if (format) problems.push(format);
  const contents = derPrefix(found.contents);
  let digestValid = false;
  let signatureValid = false;
  let signer: SignerSummary | null = null;
  let timestamp: SignatureReport['timestamp'] = null;
  try {
    if (isTimestamp) {
      const token = checkTimestampToken(contents, { digest: byteRangeDigest });
      digestValid = token.imprintMatches === true;
      signatureValid = token.signatureValid;
      signer = signerSummary(token.tsaCertificate);
      timestamp = {
        genTime: token.genTime.toISOString(),
        valid: token.signatureValid && token.imprintMatches === true,
      };
      problems.push(...token.problems);
    } else {
      const cms = inspectCms(contents, { content: parts });
      digestValid = cms.messageDigestMatches === true;
      signatureValid = cms.signatureValid;
      signer = signerSummary(cms.signerCertificate);
      if (cms.timestamp) {
        timestamp = {
          genTime: cms.timestamp.genTime.toISOString(),
          valid: cms.timestamp.signatureValid && cms.timestamp.imprintMatches !== false,
        };
      }
      problems.push(...cms.problems);
      notes.push(...cms.baselineNotes);
      // ISO 32000-1 12.8.3.3.1: the signed bytes are outside the CMS; a copy inside could say anything else.
      if (!cms.detached) problems.push('the CMS encapsulates content of its own (a PDF signature must be detached)');
    }
  } catch (error) {
    if (!isMoharError(error)) throw error;
    problems.push(error.message);
  }
  if (parts.length > 0 && !digestValid) {
    problems.push('the document bytes do not match the signed digest: they were changed after signing');
  }
  const changes = wellFormed ? revisions.after(signedEnd) : { class: 'other' as const, objects: [] };
  if (changes.class === 'other') {
    problems.push(
      'the document was changed after this signature in ways other than form filling, signatures, DSS and timestamps',
    );
  }
  if (found.docMdp !== null && !allowedByDocMdp(found.docMdp, changes.class)) {
    const beyond = changes.objects
      .filter((o) => o.class !== 'structure' && !allowedByDocMdp(found.docMdp!, o.class))
      .slice(0, 3)
      .map((o) => o.reason);
    problems.push(
      `the document was certified allowing ${DOCMDP_ALLOWS[found.docMdp] ?? 'form filling and signing'} (DocMDP P=${found.docMdp}), yet it was changed beyond that${beyond.length > 0 ? `: ${beyond.join('; ')}` : ''}`,
    );
  }
  const locks = signatureLocks(reader, found.dict, found.field);
  problems.push(...fieldLockProblems(locks, changes.objects));
  if (timestamp && !timestamp.valid) problems.push('the signature timestamp does not verify');
  const baseline = !isTimestamp && found.subFilter === 'ETSI.CAdES.detached' && notes.length === 0;
  const padesLevel = !baseline ? null : timestamp ? 'B-T' : 'B-B';
  return {
    index,
    field: found.fieldName,
    kind: isTimestamp ? 'document_timestamp' : 'signature',
    subFilter: found.subFilter,
    signer,
    name: found.name,
    reason: found.reason,
    signingTime: found.signingTime,
    byteRange: [...found.byteRange],
    revision: revisionOf(reader, signedEnd),
    coversWholeDocument: signedEnd === bytes.length || onlyWhitespace(bytes.subarray(signedEnd)),
    digestValid,
    signatureValid,
    timestamp,
    changesAfter: changes.class,
    changedObjects: [...changes.objects],
    docMdp: found.docMdp,
    fieldLock: locks[0]?.lock ?? null,
    padesLevel,
    valid: problems.length === 0 && digestValid && signatureValid,
    problems,
    notes,
  };
}

/** B-LT when the final /DSS holds the signer's certificate; B-LTA when a valid document timestamp follows it. */
function raiseLevels(
  reader: PdfReader,
  reports: SignatureReport[],
  certificates: Map<number, Uint8Array | null>,
): void {
  const dss = dssCertificates(reader).map((d) => Buffer.from(d).toString('hex'));
  for (const report of reports) {
    if (report.padesLevel !== 'B-T') continue;
    const cert = certificates.get(report.index);
    if (!cert || !dss.includes(Buffer.from(cert).toString('hex'))) continue;
    report.padesLevel = 'B-LT';
    const end = (report.byteRange[2] ?? 0) + (report.byteRange[3] ?? 0);
    const archived = reports.some(
      (r) =>
        r.kind === 'document_timestamp' &&
        r.valid &&
        (r.byteRange[2] ?? 0) + (r.byteRange[3] ?? 0) > end &&
        r.changesAfter !== 'other',
    );
    if (archived) report.padesLevel = 'B-LTA';
  }
}

export function verifyPdf(bytes: Uint8Array): VerifyReport {
  const reader = PdfReader.open(bytes);
  const found = findSignatures(reader);
  const certificates = new Map<number, Uint8Array | null>();
  const revisions = new RevisionChanges(bytes, reader);
  const reports = found.map((f, i) => {
    const report = checkOne(bytes, reader, f, i + 1, revisions);
    if (report.kind === 'signature') {
      try {
        certificates.set(i + 1, inspectCms(derPrefix(f.contents)).signerCertificate);
      } catch {
        certificates.set(i + 1, null);
      }
    }
    return report;
  });
  raiseLevels(reader, reports, certificates);
  return {
    sha256: createHash('sha256').update(bytes).digest('hex'),
    size: bytes.length,
    revisions: Math.max(1, reader.revisions.length),
    signatures: reports,
    valid: reports.length > 0 && reports.every((r) => r.valid),
  };
}
