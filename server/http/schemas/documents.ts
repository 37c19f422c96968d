import { Type } from 'typebox';
import { streamedForm } from '../validators.js';
import { Nullable, Uuid } from './common.js';

export const DocumentBody = Type.Object({
  document_id: Uuid,
  filename: Type.String(),
  page_count: Type.Integer(),
  size: Type.Integer({ description: 'bytes' }),
  sha256: Type.String({ description: 'SHA-256 of the stored bytes, lower-case hex' }),
  pages: Type.Array(
    Type.Object({
      page_number: Type.Integer(),
      width: Type.Number({ description: 'visible width in points (CropBox, after /Rotate)' }),
      height: Type.Number({ description: 'visible height in points (CropBox, after /Rotate)' }),
      rotate: Type.Integer(),
    }),
  ),
  signature_fields: Type.Array(
    Type.Object(
      {
        name: Type.String({
          description: 'fully qualified name: the pdf_signature_field of a USB DSC Signature field',
        }),
        signed: Type.Boolean({ description: 'true: it has a value already (not available for pdf_signature_field)' }),
        page_number: Nullable(Type.Integer()),
        rect: Nullable(
          Type.Object(
            { x: Type.Number(), y: Type.Number(), width: Type.Number(), height: Type.Number() },
            { description: 'its widget, in field coordinates (points from the top-left of the displayed page)' },
          ),
        ),
      },
      { description: 'the signature fields the PDF has (empty ones can take a USB DSC signature)' },
    ),
  ),
  created_at: Type.String({ format: 'date-time' }),
});

export const AttachDocumentJson = Type.Object({ document_id: Uuid });

/** The multipart upload; the handler streams the part and reports missing_file itself. */
export const MultipartFile = streamedForm(
  Type.Object(
    { file: Type.String({ format: 'binary', description: 'the PDF' }) },
    { description: 'one part named "file": the PDF' },
  ),
);

export const DocumentParams = Type.Object({ document_id: Uuid });
