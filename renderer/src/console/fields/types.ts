/** The field editor's model: parties (recipients or template roles), fields in PDF points, and a document. */
export interface EditorParty {
  key: string;
  label: string;
  role: 'signer' | 'reviewer' | 'approver' | 'cc';
  signatureMethod: 'electronic' | 'aadhaar' | 'dsc' | 'review';
}

/** Coordinates are PDF points from the top-left corner of the page as displayed (CropBox after /Rotate). */
export interface EditorField {
  id: string;
  party: string;
  field_type: number;
  page_number: number;
  x: number;
  y: number;
  width: number;
  height: number;
  label?: string;
  value?: string;
  required?: boolean;
  editable?: boolean;
  options?: string[];
  pdf_signature_field?: string;
  field_key?: string;
}

export interface EditorDocument {
  id: string;
  name: string;
  load(): Promise<Uint8Array>;
  /**
   * Visible page sizes (index 0 = page 1) when the caller has them (the API's document.pages): pages are laid out
   * before pdf.js has opened the file.
   */
  pages?: readonly { width: number; height: number }[];
}

export interface PageBox {
  width: number;
  height: number;
}
