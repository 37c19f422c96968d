/** The signer API's JSON, as the page reads it (server/http/schemas/signing.ts is the source of truth). */

export type SignerAction = 'sign' | 'review' | 'approve' | 'wait' | 'done' | 'closed';

export interface SignerField {
  field_id: string;
  recipient_id: string;
  document_id: string;
  field_type: number;
  page_number: number;
  x: number;
  y: number;
  width: number;
  height: number;
  label: string | null;
  value: string | null;
  options: string[] | null;
  pdf_signature_field: string | null;
  required: boolean;
  /** The signer may change the pre-assigned value; false: it is read-only for them. */
  editable: boolean;
}

export interface PageSize {
  page_number: number;
  /** Visible width in PDF points: the CropBox after /Rotate. */
  width: number;
  height: number;
  rotate: number;
}

export interface SignerDocument {
  document_id: string;
  filename: string;
  sha256: string;
  pages: PageSize[];
}

export interface SignerView {
  envelope: { id: string; title: string; message: string | null; status: string; redirect_url: string | null };
  recipient: {
    recipient_id: string;
    name: string;
    email: string;
    role: string;
    signature_method: string;
    status: string;
  };
  action: SignerAction;
  fields: SignerField[];
  other_fields: SignerField[];
  documents: SignerDocument[];
  session: { expires_at: string; mode: string; origin: string | null; return_url: string | null };
  /** A sandbox mock DSC request: signed with a test certificate by the server (SandboxPanel). */
  sandbox: boolean;
}

export type SignatureKind = 'drawn' | 'typed' | 'uploaded';

/** A signature the signer adopted: what is sent, and a data: URL to show it in the fields. */
export interface AdoptedSignature {
  kind: SignatureKind;
  /** Base64 PNG, without the data: prefix. */
  imagePng: string;
  dataUrl: string;
  /** The typed text (typed signatures only). */
  text?: string;
}

export type FieldValue = string | boolean;

export interface ActResult {
  recipient_status: string;
  envelope_status: string;
  redirect_url: string | null;
}

/** The body of POST {api_base}/signing/{token}/documents/{document_id}/prepared (USB DSC). */
export interface PreparedBody {
  fields: Record<string, FieldValue>;
}

/** The body of POST {api_base}/signing/{token}/aadhaar. */
export interface AadhaarStartBody {
  consent: boolean;
  fields?: Record<string, FieldValue>;
}

/** What the page reads of that call's answer: where to send the signer (the answer carries more). */
export interface AadhaarStarted {
  txn: string;
  autopost_url: string;
}

/** POST {api_base}/signing/{token}/aadhaar/status. */
export interface AadhaarStatus {
  state: 'none' | 'pending' | 'signed' | 'failed';
  recipient_status: string | null;
  envelope_status: string | null;
  /** `reason`: one of the server's ESIGN_FAILURE_REASONS, read as a string (the page's words are keyed by it). */
  failure: { reason: string; code: string; esp_code: string | null; message: string } | null;
}
