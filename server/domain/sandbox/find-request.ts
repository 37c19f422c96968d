/** GET …/sandbox/mock-dsc/requests/{public_id} and …/download: a request's state, and its signed PDF once completed. */
import { MoharError } from '../../../common/errors.js';
import type { Context } from '../context.js';
import { finalDocument, type FinalDocument } from '../workflow/download.js';
import type { TestCertificateSummary } from './test-certificate.js';

export interface MockRequestView {
  public_id: string;
  status: 'pending' | 'completed' | 'expired';
  envelope_id: string;
  document_id: string;
  external_id: string | null;
  signer_name: string;
  signer_email: string;
  created_at: string;
  expires_at: string;
  signed_at: string | null;
  completed_at: string | null;
  /** The ephemeral self-signed test certificate, once signed. */
  certificate: TestCertificateSummary | null;
  /** The final SHA-256 of the signed PDF, once completed. */
  sha256: string | null;
}

async function findRow(ctx: Context, accountId: string, publicId: string) {
  const row = await ctx.db
    .selectFrom('sandbox_requests as s')
    .innerJoin('envelopes as e', 'e.id', 's.envelope_id')
    .innerJoin('recipients as r', 'r.id', 's.recipient_id')
    .innerJoin('envelope_documents as d', (join) =>
      join.onRef('d.envelope_id', '=', 's.envelope_id').onRef('d.document_id', '=', 's.document_id'),
    )
    .select([
      's.public_id',
      's.envelope_id',
      's.document_id',
      's.certificate',
      's.created_at',
      's.expires_at',
      's.signed_at',
      'e.status',
      'e.external_id',
      'e.completed_at',
      'r.name',
      'r.email',
      'd.current_sha256',
    ])
    .where('s.public_id', '=', publicId)
    .where('s.account_id', '=', accountId)
    .executeTakeFirst();
  if (!row) throw new MoharError('mock_request_not_found', `no mock DSC request ${publicId} in this account`);
  return row;
}

export async function findMockRequest(ctx: Context, accountId: string, publicId: string): Promise<MockRequestView> {
  const row = await findRow(ctx, accountId, publicId);
  const completed = row.status === 'completed';
  const expired = !completed && (row.status === 'expired' || new Date(row.expires_at) <= ctx.now());
  return {
    public_id: row.public_id,
    status: completed ? 'completed' : expired ? 'expired' : 'pending',
    envelope_id: row.envelope_id,
    document_id: row.document_id,
    external_id: row.external_id,
    signer_name: row.name,
    signer_email: row.email,
    created_at: row.created_at,
    expires_at: row.expires_at,
    signed_at: row.signed_at,
    completed_at: row.completed_at,
    certificate: row.certificate ? (JSON.parse(row.certificate) as TestCertificateSummary) : null,
    sha256: completed ? row.current_sha256 : null,
  };
}

export async function downloadMockRequest(ctx: Context, accountId: string, publicId: string): Promise<FinalDocument> {
  const row = await findRow(ctx, accountId, publicId);
  if (row.status !== 'completed') {
    throw new MoharError(
      'signing_not_completed',
      `the mock request is not signed yet (envelope ${row.status}); download once its status is completed`,
      { extra: { envelope_status: row.status } },
    );
  }
  return finalDocument(ctx, accountId, row.envelope_id, row.document_id);
}
