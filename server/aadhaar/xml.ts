/**
 * XML for Aadhaar eSign: parsing untrusted XML, signing a message with an enveloped XML signature and
 * verifying one against a single pinned certificate (docs/decisions.md, "XML signatures for Aadhaar eSign").
 *
 * Parsing: @xmldom/xmldom with every warning treated as an error; a DOCTYPE, an entity declaration or a
 * processing instruction other than the XML declaration is refused before parsing, and so is input over
 * the size limit. Canonicalisation and the signature arithmetic are xml-crypto's (≥ 6.0.1).
 *
 * Verification is XML-signature-wrapping safe by shape, not by luck: the document must hold exactly one
 * ds:Signature, a child of the document element, whose SignedInfo has exactly one Reference with URI=""
 * (the whole document, enveloped-signature transform), fixed algorithms, and no ds:Object. The caller gets
 * the element re-parsed from the canonical bytes that were digested — never a node of the unverified tree.
 */
import { DOMParser, XMLSerializer, type Document, type Element } from '@xmldom/xmldom';
import { SignedXml } from 'xml-crypto';
import { MoharError } from '../../common/errors.js';
import type { SignatureProvider } from '../../pdf/index.js';

export const DSIG_NS = 'http://www.w3.org/2000/09/xmldsig#';
export const ALGORITHMS = {
  rsaSha256: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
  sha256: 'http://www.w3.org/2001/04/xmlenc#sha256',
  excC14n: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  c14n: 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315',
  enveloped: 'http://www.w3.org/2000/09/xmldsig#enveloped-signature',
} as const;

/** Canonicalisations accepted from an ESP (ESPs use inclusive or exclusive C14N, never "with comments"). */
const ACCEPTED_C14N: ReadonlySet<string> = new Set([ALGORITHMS.excC14n, ALGORITHMS.c14n]);
const ACCEPTED_TRANSFORMS: ReadonlySet<string> = new Set([ALGORITHMS.enveloped, ALGORITHMS.excC14n, ALGORITHMS.c14n]);

/** 1 MiB: an EsignResp holds one certificate and a CMS (~10 KB base64) per document, a few documents at most. */
export const DEFAULT_MAX_XML_BYTES = 1024 * 1024;

function refused(reason: string, cause?: unknown): MoharError {
  return new MoharError('esign_xml_invalid', `Aadhaar eSign XML refused: ${reason}`, {
    extra: { reason },
    ...(cause === undefined ? {} : { cause }),
  });
}

export interface ParseOptions {
  readonly maxBytes?: number;
}

/** Refuses what must never reach a parser: oversize input, DTDs, entity declarations, processing instructions. */
function screen(xml: string, maxBytes: number): void {
  if (Buffer.byteLength(xml, 'utf8') > maxBytes) throw refused(`larger than ${maxBytes} bytes`);
  if (/<!DOCTYPE/i.test(xml) || /<!ENTITY/i.test(xml)) throw refused('a DOCTYPE or entity declaration is not allowed');
  // The XML declaration is the one processing instruction allowed, and only at the very start.
  const withoutDeclaration = xml.replace(/^\uFEFF?<\?xml\s[^?]*\?>/, '');
  if (withoutDeclaration.includes('<?')) throw refused('processing instructions are not allowed');
}

/** Parses untrusted XML strictly: any warning or error refuses the document. */
export function parseXml(xml: string, options: ParseOptions = {}): Document {
  screen(xml, options.maxBytes ?? DEFAULT_MAX_XML_BYTES);
  const problems: string[] = [];
  let doc: Document;
  try {
    doc = new DOMParser({
      onError: (level, message) => {
        problems.push(`${level}: ${message}`);
        throw new Error(message);
      },
    }).parseFromString(xml, 'text/xml');
  } catch (e) {
    throw refused(`not well-formed XML (${problems[0] ?? (e as Error).message})`, e);
  }
  if (problems.length > 0 || !doc.documentElement) {
    throw refused(`not well-formed XML (${problems[0] ?? 'no document element'})`);
  }
  if (doc.doctype) throw refused('a DOCTYPE is not allowed');
  return doc;
}

export function serializeXml(node: Document | Element): string {
  return new XMLSerializer().serializeToString(node);
}

/** The element children of `parent` (no text, comments). */
export function childElements(parent: Element, localName?: string): Element[] {
  const out: Element[] = [];
  for (let n = parent.firstChild; n; n = n.nextSibling) {
    if (n.nodeType === 1 && (localName === undefined || (n as Element).localName === localName)) out.push(n as Element);
  }
  return out;
}

function dsigChildren(parent: Element, localName: string): Element[] {
  return childElements(parent, localName).filter((e) => e.namespaceURI === DSIG_NS);
}

function algorithmOf(parent: Element, localName: string): string {
  const found = dsigChildren(parent, localName);
  if (found.length !== 1) throw refused(`expected one ${localName}`);
  return found[0]!.getAttribute('Algorithm') ?? '';
}

/** The shape checks: one Signature under the root, one Reference to URI="", fixed algorithms. */
function checkSignatureShape(doc: Document, rootName: string): Element {
  const root = doc.documentElement!;
  if (root.localName !== rootName || root.namespaceURI) {
    throw refused(`the document element is ${root.localName ?? '?'}, expected ${rootName}`);
  }
  const all = doc.getElementsByTagNameNS(DSIG_NS, 'Signature');
  if (all.length !== 1) {
    throw refused(all.length === 0 ? 'no XML signature' : `${all.length} XML signatures (exactly one is allowed)`);
  }
  const signature = all.item(0)!;
  if (signature.parentNode !== root) throw refused('the XML signature is not a child of the document element');
  if (dsigChildren(signature, 'Object').length > 0) throw refused('ds:Object is not allowed in the signature');
  const signedInfos = dsigChildren(signature, 'SignedInfo');
  if (signedInfos.length !== 1) throw refused('expected one SignedInfo');
  const signedInfo = signedInfos[0]!;
  if (!ACCEPTED_C14N.has(algorithmOf(signedInfo, 'CanonicalizationMethod'))) {
    throw refused('unsupported canonicalisation');
  }
  if (algorithmOf(signedInfo, 'SignatureMethod') !== ALGORITHMS.rsaSha256) {
    throw refused('the signature method must be RSA-SHA256');
  }
  const references = signature.getElementsByTagNameNS(DSIG_NS, 'Reference');
  if (references.length !== 1) throw refused(`${references.length} References (exactly one is allowed)`);
  const reference = references.item(0)!;
  if (reference.parentNode !== signedInfo) throw refused('the Reference is not in SignedInfo');
  if (!reference.hasAttribute('URI') || reference.getAttribute('URI') !== '') {
    throw refused('the Reference must have URI="" (the whole document)');
  }
  if (algorithmOf(reference, 'DigestMethod') !== ALGORITHMS.sha256) throw refused('the digest method must be SHA-256');
  const transformsParent = dsigChildren(reference, 'Transforms');
  if (transformsParent.length !== 1) throw refused('the Reference must list its transforms');
  const transforms = dsigChildren(transformsParent[0]!, 'Transform').map((t) => t.getAttribute('Algorithm') ?? '');
  if (
    !transforms.includes(ALGORITHMS.enveloped) ||
    transforms.some((t) => !ACCEPTED_TRANSFORMS.has(t)) ||
    transforms.length > 2
  ) {
    throw refused('the transforms must be enveloped-signature and a canonicalisation');
  }
  return signature;
}

export interface VerifyOptions extends ParseOptions {
  /** The one certificate (PEM) whose key must have made the signature; KeyInfo in the document is ignored. */
  readonly certificatePem: string;
  /** Local name of the expected document element, e.g. "EsignResp". */
  readonly rootName: string;
}

/**
 * Verifies an enveloped XML signature and returns the signed document element (without its Signature),
 * parsed from exactly the bytes that were digested. Throws MoharError('esign_xml_invalid') otherwise.
 */
export function verifyEnveloped(xml: string, options: VerifyOptions): Element {
  const doc = parseXml(xml, options);
  const signature = checkSignatureShape(doc, options.rootName);
  const verifier = new SignedXml({ publicCert: options.certificatePem, getCertFromKeyInfo: () => null });
  let signedCanonical: string | undefined;
  try {
    verifier.loadSignature(signature as unknown as Parameters<SignedXml['loadSignature']>[0]);
    const ok = verifier.checkSignature(xml);
    const references = verifier.getSignedReferences();
    if (ok && references.length === 1) signedCanonical = references[0];
  } catch (e) {
    throw refused(`the XML signature does not verify (${(e as Error).message.slice(0, 200)})`, e);
  }
  if (signedCanonical === undefined) throw refused('the XML signature does not verify');
  const signed = parseXml(signedCanonical, { maxBytes: Number.MAX_SAFE_INTEGER }).documentElement!;
  if (signed.localName !== options.rootName) throw refused('the signed element is not the document element');
  return signed;
}

/** What signEnveloped needs: the signer's certificate and an RSA key that signs with SHA-256 (software, PKCS#11, …). */
export type XmlSigner = Pick<SignatureProvider, 'certificate' | 'keyType' | 'sign'>;

function pemOf(der: Uint8Array): string {
  const b64 = Buffer.from(der)
    .toString('base64')
    .replace(/(.{64})/g, '$1\n');
  return `-----BEGIN CERTIFICATE-----\n${b64.trimEnd()}\n-----END CERTIFICATE-----\n`;
}

/**
 * Adds an enveloped XML signature (RSA-SHA256, exclusive C14N, one Reference URI="" over the whole
 * document, KeyInfo with the signer certificate) as the last child of the document element.
 */
export async function signEnveloped(xml: string, signer: XmlSigner): Promise<string> {
  if (signer.keyType !== 'RSA') {
    throw new MoharError('signing_key_invalid', 'Aadhaar eSign XML signatures need an RSA key');
  }
  const sig = new SignedXml({
    publicCert: pemOf(signer.certificate),
    privateKey: 'held-by-the-signer',
    signatureAlgorithm: ALGORITHMS.rsaSha256,
    canonicalizationAlgorithm: ALGORITHMS.excC14n,
  });
  // The key may live on a token: the RSA-SHA256 step is the signer's, asynchronously.
  sig.SignatureAlgorithms = {
    ...sig.SignatureAlgorithms,
    [ALGORITHMS.rsaSha256]: class {
      getSignature(signedInfo: string, _key: unknown, callback?: (err: Error | null, value?: string) => void): void {
        signer.sign(Buffer.from(signedInfo, 'utf8')).then(
          (value) => callback?.(null, Buffer.from(value).toString('base64')),
          (e: unknown) => callback?.(e instanceof Error ? e : new Error(String(e))),
        );
      }
      verifySignature(): boolean {
        return false;
      }
      getAlgorithmName(): string {
        return ALGORITHMS.rsaSha256;
      }
    } as unknown as (typeof sig.SignatureAlgorithms)[keyof typeof sig.SignatureAlgorithms],
  };
  sig.addReference({
    xpath: '/*',
    transforms: [ALGORITHMS.enveloped, ALGORITHMS.excC14n],
    digestAlgorithm: ALGORITHMS.sha256,
    isEmptyUri: true,
  });
  await new Promise<void>((resolve, reject) => {
    sig.computeSignature(xml, { location: { reference: '/*', action: 'append' } }, (err) =>
      err ? reject(err) : resolve(),
    );
  });
  return sig.getSignedXml();
}
