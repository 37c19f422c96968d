/**
 * The eSign API 2.1 messages an ASP and an ESP exchange, as plain values, built to and read from XML:
 *
 *   Esign        ASP → ESP (browser form post): the signing request with one InputHash per document.
 *   EsignResp    ESP → ASP (browser form post to responseUrl): status, the signer certificate and one
 *                DocSignature (base64 detached CMS, PKCS#7) per InputHash.
 *   EsignStatus  ASP → ESP (server to server): "what became of txn?" for a lost callback; answered with an
 *                EsignResp (status 1 or 0 as it was sent, 2 while the signer has not finished).
 *
 * Every message carries an enveloped XML signature (xml.ts). `verify…` functions take the raw XML and the
 * pinned certificate and read values only from the verified element; `parse…` functions read an element
 * already verified. Shape problems throw MoharError('esign_xml_invalid').
 */
import type { Element } from '@xmldom/xmldom';
import { MoharError } from '../../common/errors.js';
import { childElements, signEnveloped, verifyEnveloped, type ParseOptions, type XmlSigner } from './xml.js';

export const ESIGN_VERSION = '2.1';

export interface InputHash {
  /** Document number within the request ("1", "2", …); the DocSignature of the response carries the same id. */
  readonly id: string;
  readonly hashAlgorithm: 'SHA256';
  /** Shown to the signer by the ESP (document title). */
  readonly docInfo: string;
  /** Lower-case hex SHA-256 of the PDF ByteRange. */
  readonly hash: string;
}

export interface EsignRequest {
  readonly ver: string;
  readonly sc: string;
  /** eSign timestamp, `YYYY-MM-DDThh:mm:ss` in IST (formatEsignTimestamp). */
  readonly ts: string;
  readonly txn: string;
  readonly ekycId: string;
  readonly ekycIdType: string;
  readonly aspId: string;
  readonly authMode: string;
  readonly responseSigType: string;
  readonly responseUrl: string;
  readonly docs: readonly InputHash[];
}

export interface DocSignature {
  readonly id: string;
  readonly sigHashAlgorithm: string;
  /** Per-document error text, empty when signed. */
  readonly error: string;
  /** Base64 DER CMS SignedData (detached); empty when this document failed. */
  readonly value: string;
}

/** "1" signed, "0" failed, "2" pending (status queries only). */
export type EsignStatusCode = '0' | '1' | '2';

export interface EsignResponse {
  readonly ver: string;
  readonly status: EsignStatusCode;
  readonly ts: string;
  readonly txn: string;
  /** The ESP's reference for this response. */
  readonly resCode: string;
  /** "NA" on success. */
  readonly errCode: string;
  readonly errMsg: string;
  /** Base64 DER of the signer certificate; empty on failure. */
  readonly userCertificate: string;
  readonly signatures: readonly DocSignature[];
}

export interface EsignStatusRequest {
  readonly ver: string;
  readonly ts: string;
  readonly txn: string;
  readonly aspId: string;
}

function invalid(reason: string): MoharError {
  return new MoharError('esign_xml_invalid', `Aadhaar eSign XML refused: ${reason}`, { extra: { reason } });
}

function escapeXml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/\r/g, '&#13;')
    .replace(/\n/g, '&#10;')
    .replace(/\t/g, '&#9;');
}

function attributes(values: Readonly<Record<string, string>>): string {
  return Object.entries(values)
    .map(([k, v]) => ` ${k}="${escapeXml(v)}"`)
    .join('');
}

function required(el: Element, name: string): string {
  if (!el.hasAttribute(name)) throw invalid(`${el.localName ?? '?'} lacks the ${name} attribute`);
  return el.getAttribute(name) ?? '';
}

function optional(el: Element, name: string): string {
  return el.getAttribute(name) ?? '';
}

function only(parent: Element, name: string, optionalChild = false): Element | undefined {
  const found = childElements(parent, name);
  if (found.length > 1) throw invalid(`more than one ${name}`);
  if (found.length === 0 && !optionalChild) throw invalid(`no ${name}`);
  return found[0];
}

function expectRoot(el: Element, name: string): void {
  if (el.localName !== name || el.namespaceURI) throw invalid(`expected ${name}, got ${el.localName ?? '?'}`);
}

/** Text content with all XML whitespace removed (base64 and hex values are wrapped by some ESPs). */
function compactText(el: Element): string {
  return (el.textContent ?? '').replace(/[\s]+/g, '');
}

// --- Esign -------------------------------------------------------------------------------------------------

export function buildEsignRequest(req: EsignRequest): string {
  const docs = req.docs
    .map(
      (d) =>
        `<InputHash${attributes({ id: d.id, hashAlgorithm: d.hashAlgorithm, docInfo: d.docInfo })}>${escapeXml(d.hash)}</InputHash>`,
    )
    .join('');
  const attrs = attributes({
    ver: req.ver,
    sc: req.sc,
    ts: req.ts,
    txn: req.txn,
    ekycId: req.ekycId,
    ekycIdType: req.ekycIdType,
    aspId: req.aspId,
    AuthMode: req.authMode,
    responseSigType: req.responseSigType,
    responseUrl: req.responseUrl,
  });
  return `<Esign${attrs}><Docs>${docs}</Docs></Esign>`;
}

export function parseEsignRequest(el: Element): EsignRequest {
  expectRoot(el, 'Esign');
  const docs = childElements(only(el, 'Docs')!, 'InputHash').map((h): InputHash => {
    const hashAlgorithm = required(h, 'hashAlgorithm');
    if (hashAlgorithm.toUpperCase() !== 'SHA256') {
      throw invalid(`InputHash hashAlgorithm ${hashAlgorithm} (SHA256 only)`);
    }
    const hash = compactText(h).toLowerCase();
    if (!/^[0-9a-f]{64}$/.test(hash)) throw invalid('an InputHash is not a hex SHA-256');
    return { id: required(h, 'id'), hashAlgorithm: 'SHA256', docInfo: optional(h, 'docInfo'), hash };
  });
  if (docs.length === 0) throw invalid('no InputHash');
  if (new Set(docs.map((d) => d.id)).size !== docs.length) throw invalid('InputHash ids repeat');
  return {
    ver: required(el, 'ver'),
    sc: required(el, 'sc'),
    ts: required(el, 'ts'),
    txn: required(el, 'txn'),
    ekycId: optional(el, 'ekycId'),
    ekycIdType: required(el, 'ekycIdType'),
    aspId: required(el, 'aspId'),
    authMode: required(el, 'AuthMode'),
    responseSigType: required(el, 'responseSigType'),
    responseUrl: required(el, 'responseUrl'),
    docs,
  };
}

export async function signEsignRequest(req: EsignRequest, aspSigner: XmlSigner): Promise<string> {
  return signEnveloped(buildEsignRequest(req), aspSigner);
}

/** Verifies the ASP's signature with its registered certificate, then reads the request. */
export function verifyEsignRequest(xml: string, aspCertificatePem: string, options: ParseOptions = {}): EsignRequest {
  return parseEsignRequest(verifyEnveloped(xml, { ...options, certificatePem: aspCertificatePem, rootName: 'Esign' }));
}

// --- EsignResp ---------------------------------------------------------------------------------------------

export function buildEsignResponse(res: EsignResponse): string {
  const attrs = attributes({
    ver: res.ver,
    status: res.status,
    ts: res.ts,
    txn: res.txn,
    resCode: res.resCode,
    errCode: res.errCode,
    errMsg: res.errMsg,
  });
  const signatures = res.signatures
    .map(
      (s) =>
        `<DocSignature${attributes({ id: s.id, sigHashAlgorithm: s.sigHashAlgorithm, error: s.error })}>${escapeXml(s.value)}</DocSignature>`,
    )
    .join('');
  return `<EsignResp${attrs}><UserX509Certificate>${escapeXml(res.userCertificate)}</UserX509Certificate><Signatures>${signatures}</Signatures></EsignResp>`;
}

function statusOf(value: string): EsignStatusCode {
  if (value === '0' || value === '1' || value === '2') return value;
  throw invalid(`EsignResp status ${value} (0, 1 or 2)`);
}

export function parseEsignResponse(el: Element): EsignResponse {
  expectRoot(el, 'EsignResp');
  const certificate = only(el, 'UserX509Certificate', true);
  const signaturesEl = only(el, 'Signatures', true);
  const signatures = signaturesEl
    ? childElements(signaturesEl, 'DocSignature').map((s): DocSignature => ({
        id: required(s, 'id'),
        sigHashAlgorithm: optional(s, 'sigHashAlgorithm'),
        error: optional(s, 'error'),
        value: compactText(s),
      }))
    : [];
  if (new Set(signatures.map((s) => s.id)).size !== signatures.length) throw invalid('DocSignature ids repeat');
  return {
    ver: optional(el, 'ver'),
    status: statusOf(required(el, 'status')),
    ts: optional(el, 'ts'),
    txn: required(el, 'txn'),
    resCode: optional(el, 'resCode'),
    errCode: optional(el, 'errCode'),
    errMsg: optional(el, 'errMsg'),
    userCertificate: certificate ? compactText(certificate) : '',
    signatures,
  };
}

export async function signEsignResponse(res: EsignResponse, espSigner: XmlSigner): Promise<string> {
  return signEnveloped(buildEsignResponse(res), espSigner);
}

/** Verifies the ESP's signature against the pinned ESP certificate, then reads the response. */
export function verifyEsignResponse(xml: string, espCertificatePem: string, options: ParseOptions = {}): EsignResponse {
  return parseEsignResponse(
    verifyEnveloped(xml, { ...options, certificatePem: espCertificatePem, rootName: 'EsignResp' }),
  );
}

// --- EsignStatus -------------------------------------------------------------------------------------------

export function buildEsignStatusRequest(req: EsignStatusRequest): string {
  return `<EsignStatus${attributes({ ver: req.ver, ts: req.ts, txn: req.txn, aspId: req.aspId })}/>`;
}

export function parseEsignStatusRequest(el: Element): EsignStatusRequest {
  expectRoot(el, 'EsignStatus');
  return { ver: required(el, 'ver'), ts: required(el, 'ts'), txn: required(el, 'txn'), aspId: required(el, 'aspId') };
}

export async function signEsignStatusRequest(req: EsignStatusRequest, aspSigner: XmlSigner): Promise<string> {
  return signEnveloped(buildEsignStatusRequest(req), aspSigner);
}

export function verifyEsignStatusRequest(
  xml: string,
  aspCertificatePem: string,
  options: ParseOptions = {},
): EsignStatusRequest {
  return parseEsignStatusRequest(
    verifyEnveloped(xml, { ...options, certificatePem: aspCertificatePem, rootName: 'EsignStatus' }),
  );
}

// --- Timestamps --------------------------------------------------------------------------------------------

const IST_OFFSET_MS = (5 * 60 + 30) * 60 * 1000;

/** `YYYY-MM-DDThh:mm:ss` in Indian Standard Time, as eSign messages carry it. */
export function formatEsignTimestamp(date: Date): string {
  return new Date(date.getTime() + IST_OFFSET_MS).toISOString().slice(0, 19);
}

/** Reads an eSign timestamp: IST when it has no zone, else its own offset. Undefined when unreadable. */
export function parseEsignTimestamp(ts: string): Date | undefined {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})?$/.exec(ts);
  if (!m) return undefined;
  const ms = Date.parse(`${m[1]}${(m[2] ?? '').slice(0, 4)}${m[3] ?? '+05:30'}`);
  return Number.isNaN(ms) ? undefined : new Date(ms);
}
