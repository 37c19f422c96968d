/**
 * Finding the PDFs a template definition names: an uploaded multipart part (`file`), bytes embedded in an
 * exported template (`content_base64`), a workspace document (`document_id`), or a document of the account
 * with that SHA-256 (`sha256`). Uploads become ordinary workspace documents: stored content-addressed, so a
 * PDF shared by versions, templates and envelopes is stored once.
 */
import { createHash } from 'node:crypto';
import { MoharError } from '../../../common/errors.js';
import { findDocument, uploadDocument, type DocumentRow } from '../documents/documents.js';
import type { Context } from '../context.js';
import type { DocumentInput } from './model.js';
import type { ResolvedDocument } from './validate.js';

export interface UploadedPart {
  readonly filename: string | undefined;
  readonly bytes: Uint8Array;
}

const DOCUMENT_COLUMNS = ['id', 'filename', 'sha256', 'size', 'page_count', 'info', 'created_at'] as const;

function invalid(path: string, message: string): MoharError {
  return new MoharError('validation_failed', `${path}: ${message}`, { errors: [{ path, message }] });
}

/** Resolves documents once per part name, so a retried change does not upload the same part twice. */
export class DocumentResolver {
  private readonly uploaded = new Map<string, DocumentRow>();

  constructor(
    private readonly ctx: Context,
    private readonly accountId: string,
    private readonly files: ReadonlyMap<string, UploadedPart>,
  ) {}

  async resolve(inputs: readonly DocumentInput[]): Promise<ResolvedDocument[]> {
    const used = new Set<string>();
    const out: ResolvedDocument[] = [];
    for (const [index, input] of inputs.entries()) {
      const row = await this.one(input, `/documents/${index}`);
      if (input.file !== undefined) used.add(input.file);
      out.push({ row, fields: input.fields ?? [] });
    }
    const unused = [...this.files.keys()].filter((name) => !used.has(name));
    if (unused.length > 0) {
      throw invalid(
        '/documents',
        `the file part(s) ${unused.map((n) => `"${n}"`).join(', ')} are not named by any document (documents[].file)`,
      );
    }
    return out;
  }

  /** Every uploaded part, in the order sent, as a document without fields (a template JSON without `documents`). */
  partsInOrder(): DocumentInput[] {
    return [...this.files.keys()].map((file) => ({ file }));
  }

  private async one(input: DocumentInput, path: string): Promise<DocumentRow> {
    if (input.file !== undefined) return this.upload(input.file, path);
    if (input.content_base64 !== undefined) return this.embedded(input, path);
    if (input.document_id !== undefined) {
      const row = await findDocument(this.ctx, this.accountId, input.document_id);
      if (input.sha256 !== undefined && input.sha256 !== row.sha256) {
        throw invalid(`${path}/sha256`, `document ${row.id} has SHA-256 ${row.sha256}, not ${input.sha256}`);
      }
      return row;
    }
    if (input.sha256 !== undefined) return this.bySha256(input.sha256, path);
    throw invalid(path, 'name the PDF by file (a multipart part), content_base64, document_id or sha256');
  }

  private async upload(name: string, path: string): Promise<DocumentRow> {
    const cached = this.uploaded.get(name);
    if (cached) return cached;
    const part = this.files.get(name);
    if (!part) throw invalid(`${path}/file`, `no multipart file part named "${name}"`);
    const view = await uploadDocument(this.ctx, this.accountId, part.filename, part.bytes);
    const row = await findDocument(this.ctx, this.accountId, view.document_id);
    this.uploaded.set(name, row);
    return row;
  }

  private async embedded(input: DocumentInput, path: string): Promise<DocumentRow> {
    const bytes = Buffer.from(input.content_base64!, 'base64');
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    if (input.sha256 !== undefined && input.sha256 !== sha256) {
      throw invalid(
        `${path}/content_base64`,
        `the embedded PDF has SHA-256 ${sha256}, not the ${input.sha256} the template names`,
      );
    }
    // The same bytes already in this account: reuse that document instead of a second row.
    const existing = await this.findBySha256(sha256);
    if (existing) return existing;
    const view = await uploadDocument(this.ctx, this.accountId, input.filename, bytes);
    return findDocument(this.ctx, this.accountId, view.document_id);
  }

  private async bySha256(sha256: string, path: string): Promise<DocumentRow> {
    const row = await this.findBySha256(sha256);
    if (!row) {
      throw invalid(
        `${path}/sha256`,
        `this account has no document with SHA-256 ${sha256}; export the template with ?include=documents to carry the PDFs along`,
      );
    }
    return row;
  }

  private findBySha256(sha256: string): Promise<DocumentRow | undefined> {
    return this.ctx.db
      .selectFrom('documents')
      .select(DOCUMENT_COLUMNS)
      .where('account_id', '=', this.accountId)
      .where('sha256', '=', sha256)
      .orderBy('created_at')
      .limit(1)
      .executeTakeFirst();
  }
}
