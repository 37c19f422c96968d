/** Reads a multipart form with several PDF parts (templates): file parts by part name, text parts by name. */
import type { FastifyRequest } from 'fastify';
import { MoharError } from '../../common/errors.js';
import type { UploadedFile } from './multipart.js';

export interface FilesForm {
  /** File parts in the order sent, by part name. */
  readonly files: ReadonlyMap<string, UploadedFile>;
  readonly fields: Readonly<Record<string, string>>;
}

export async function readFilesForm(request: FastifyRequest, maxFiles: number): Promise<FilesForm> {
  const files = new Map<string, UploadedFile>();
  const fields: Record<string, string> = {};
  // The app-wide limit is one file per request; template uploads may carry several PDFs.
  for await (const part of request.parts({ limits: { files: maxFiles, parts: maxFiles + 10 } })) {
    if (part.type === 'file') {
      const bytes = await part.toBuffer();
      if (files.has(part.fieldname)) {
        throw new MoharError(
          'validation_failed',
          `two file parts are named "${part.fieldname}"; give each PDF its own part name`,
          { errors: [{ path: `/${part.fieldname}`, message: 'duplicate part name' }] },
        );
      }
      files.set(part.fieldname, { filename: part.filename, bytes });
    } else if (typeof part.value === 'string') {
      fields[part.fieldname] = part.value;
    }
  }
  return { files, fields };
}
