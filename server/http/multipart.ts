/** Reads the single `file` part of a multipart upload, bounded by MOHAR_MAX_PDF_BYTES. */
import type { FastifyRequest } from 'fastify';
import { MoharError } from '../../common/errors.js';

export interface UploadedFile {
  readonly filename: string | undefined;
  readonly bytes: Buffer;
}

export async function readFilePart(request: FastifyRequest): Promise<UploadedFile> {
  for await (const part of request.parts()) {
    if (part.type === 'file' && part.fieldname === 'file') {
      // toBuffer() throws FST_REQ_FILE_TOO_LARGE past the limit; the problem handler maps it to file_too_large.
      return { filename: part.filename, bytes: await part.toBuffer() };
    }
    if (part.type === 'file') await part.toBuffer();
  }
  throw new MoharError('missing_file', 'send the PDF as a multipart/form-data part named "file"');
}

export interface MultipartForm {
  readonly file: UploadedFile | undefined;
  /** Text parts by name (the last one wins when a name repeats). */
  readonly fields: Readonly<Record<string, string>>;
}

/** Reads a form with one `file` part and text parts; text parts are capped by @fastify/multipart's fieldSize. */
export async function readMultipartForm(request: FastifyRequest): Promise<MultipartForm> {
  let file: UploadedFile | undefined;
  const fields: Record<string, string> = {};
  for await (const part of request.parts()) {
    if (part.type === 'file') {
      const bytes = await part.toBuffer();
      if (part.fieldname === 'file' && !file) file = { filename: part.filename, bytes };
    } else if (typeof part.value === 'string') {
      fields[part.fieldname] = part.value;
    }
  }
  return { file, fields };
}
