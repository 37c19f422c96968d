import { Type } from 'typebox';
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
  signature_fields: Type.Array(Type.Object({ name: Type.String(), signed: Type.Boolean(), page_number: Nullable(Type.Integer()) })),
  created_at: Type.String({ format: 'date-time' }),
});

export const AttachDocumentJson = Type.Object({ document_id: Uuid });

/** Documents the multipart upload; the handler streams the part and reports missing_file itself. */
export const MultipartFile = Type.Object(
  { file: Type.Optional(Type.String({ format: 'binary', description: 'the PDF (required)' })) },
  { description: 'one part named "file": the PDF' },
);

export const DocumentParams = Type.Object({ document_id: Uuid });
