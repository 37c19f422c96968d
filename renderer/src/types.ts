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
  /** The signer may change the pre-assigned value; false (or absent): it is read-only for them. */
  editable?: boolean;
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
