/**
 * Validation of a signPrepared request coming from web content: types and lengths, strict base64 under a
 * size cap, and a PDF that can take a signature in the named, still empty, signature field. Everything
 * here refuses with invalid_request before a token or a PIN is involved.
 */
import type { SignPreparedRequest } from '../../common/desktop-bridge.js';
import { checkSignable, getPages, listSignatureFields, PdfReader } from '../../pdf/index.js';
import { DesktopFailure } from './outcome.js';

export interface ValidRequest {
  readonly pdf: Buffer;
  readonly fieldName: string;
  readonly slotId: string;
  readonly certificateId: string;
  readonly documentName: string;
  readonly reason: string | undefined;
  readonly location: string | undefined;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function invalid(message: string): DesktopFailure {
  return new DesktopFailure('invalid_request', message);
}

function text(value: unknown, what: string, max: number, optional = false): string | undefined {
  if (value === undefined && optional) return undefined;
  if (typeof value !== 'string' || value.length === 0) throw invalid(`${what} must be a non-empty string.`);
  if (value.length > max) throw invalid(`${what} is longer than ${max} characters.`);
  return value;
}

/** Shown in the PIN window: control characters (also bidi overrides) become spaces. */
function displayText(value: string): string {
  return value.replace(/[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu, ' ').trim() || 'document';
}

export function validateRequest(request: unknown, maxPdfBytes: number): ValidRequest {
  if (typeof request !== 'object' || request === null || Array.isArray(request)) {
    throw invalid('The request must be an object.');
  }
  const r = request as Partial<Record<keyof SignPreparedRequest, unknown>>;
  if (typeof r.pdfBase64 !== 'string' || r.pdfBase64.length === 0) {
    throw invalid('pdfBase64 must be the prepared PDF in base64.');
  }
  if (r.pdfBase64.length > Math.ceil(maxPdfBytes / 3) * 4) {
    throw invalid(`The PDF is larger than ${maxPdfBytes} bytes.`);
  }
  if (r.pdfBase64.length % 4 !== 0 || !BASE64.test(r.pdfBase64)) throw invalid('pdfBase64 is not valid base64.');
  const pdf = Buffer.from(r.pdfBase64, 'base64');
  if (pdf.length > maxPdfBytes) throw invalid(`The PDF is larger than ${maxPdfBytes} bytes.`);
  const valid: ValidRequest = {
    pdf,
    fieldName: text(r.fieldName, 'fieldName', 1000)!,
    slotId: text(r.slotId, 'slotId', 200)!,
    certificateId: text(r.certificateId, 'certificateId', 200)!,
    documentName: displayText(text(r.documentName, 'documentName', 500)!),
    reason: text(r.reason, 'reason', 500, true),
    location: text(r.location, 'location', 500, true),
  };
  checkField(pdf, valid.fieldName);
  return valid;
}

/** The PDF opens, may take a signature (not encrypted, not DocMDP P=1) and has the field, still unsigned. */
function checkField(pdf: Buffer, fieldName: string): void {
  if (pdf.subarray(0, 1024).indexOf('%PDF-') === -1) throw invalid('pdfBase64 does not hold a PDF.');
  let fields: ReturnType<typeof listSignatureFields>;
  try {
    const reader: PdfReader = checkSignable(pdf);
    fields = listSignatureFields(reader, getPages(reader));
  } catch (error) {
    throw invalid(`The prepared PDF cannot be signed: ${error instanceof Error ? error.message : String(error)}`);
  }
  const field = fields.find((f) => f.name === fieldName);
  if (!field) throw invalid(`The PDF has no signature field "${fieldName}".`);
  if (field.signed) throw invalid(`The signature field "${fieldName}" is already signed.`);
}
