/**
 * What a recipient sees through the signer API: the envelope, their action, their fields, the values other
 * recipients filled, and the documents with page sizes. The first look marks them viewed (with an event).
 */
import type { Context } from '../context.js';
import { iso } from '../time.js';
import { storedInfo } from '../documents/documents.js';
import { fieldView, type FieldView } from '../envelopes/views.js';
import { recordEvent } from './events.js';
import type { ResolvedSession } from './sessions.js';
import { envelopeSummary, recipientSummary } from './summaries.js';
import { FINISHED_ENVELOPE_STATUSES, type EnvelopeStatus } from './states.js';

export type SignerAction = 'sign' | 'review' | 'approve' | 'wait' | 'done' | 'closed';

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
  fields: (FieldView & { document_id: string })[];
  other_fields: (FieldView & { document_id: string })[];
  documents: {
    document_id: string;
    filename: string;
    sha256: string;
    pages: { page_number: number; width: number; height: number; rotate: number }[];
  }[];
  session: { expires_at: string; mode: string; origin: string | null; return_url: string | null };
  /** A mock DSC request of the sandbox: the page offers "Sign with a test certificate" (POST …/mock-dsc). */
  sandbox: boolean;
}

export function actionFor(envelopeStatus: EnvelopeStatus, recipient: { role: string; status: string }): SignerAction {
  if (FINISHED_ENVELOPE_STATUSES.has(envelopeStatus)) return 'closed';
  if (['signed', 'approved', 'reviewed', 'declined', 'completed'].includes(recipient.status)) return 'done';
  if (recipient.status !== 'active' && recipient.status !== 'viewed') return 'wait';
  return recipient.role === 'signer'
    ? 'sign'
    : recipient.role === 'reviewer'
      ? 'review'
      : recipient.role === 'approver'
        ? 'approve'
        : 'wait';
}

export async function signerView(ctx: Context, session: ResolvedSession): Promise<SignerView> {
  const envelope = await ctx.db
    .selectFrom('envelopes')
    .selectAll()
    .where('id', '=', session.envelopeId)
    .executeTakeFirstOrThrow();
  let recipient = await ctx.db
    .selectFrom('recipients')
    .selectAll()
    .where('id', '=', session.recipientId)
    .executeTakeFirstOrThrow();
  if (recipient.status === 'active' && envelope.status === 'sent') {
    const at = iso(ctx.now());
    await ctx.db.transaction().execute(async (trx) => {
      const moved = await trx
        .updateTable('recipients')
        .set({ status: 'viewed', viewed_at: at })
        .where('id', '=', recipient.id)
        .where('status', '=', 'active')
        .executeTakeFirst();
      if (Number(moved.numUpdatedRows) === 1) {
        await recordEvent(
          trx,
          envelope.account_id,
          envelope.id,
          'recipient.viewed',
          { envelope: envelopeSummary(envelope), recipient: recipientSummary({ ...recipient, status: 'viewed' }) },
          at,
          { type: 'recipient', id: recipient.id, details: { recipient_id: recipient.id } },
        );
      }
    });
    recipient = { ...recipient, status: 'viewed', viewed_at: at };
  }
  const [documents, fields, mock] = await Promise.all([
    ctx.db
      .selectFrom('envelope_documents')
      .innerJoin('documents', 'documents.id', 'envelope_documents.document_id')
      .select([
        'documents.id',
        'documents.filename',
        'documents.info',
        'envelope_documents.current_sha256',
        'documents.sha256',
      ])
      .where('envelope_documents.envelope_id', '=', envelope.id)
      .orderBy('envelope_documents.position')
      .execute(),
    ctx.db.selectFrom('fields').selectAll().where('envelope_id', '=', envelope.id).orderBy('position').execute(),
    ctx.db
      .selectFrom('sandbox_requests')
      .select('recipient_id')
      .where('envelope_id', '=', envelope.id)
      .executeTakeFirst(),
  ]);
  const withDocument = (f: (typeof fields)[number]) => ({ ...fieldView(f), document_id: f.document_id });
  return {
    envelope: {
      id: envelope.id,
      title: envelope.title,
      message: envelope.message,
      status: envelope.status,
      redirect_url: envelope.redirect_url,
    },
    recipient: {
      recipient_id: recipient.id,
      name: recipient.name,
      email: recipient.email,
      role: recipient.role,
      signature_method: recipient.signature_method,
      status: recipient.status,
    },
    action: actionFor(envelope.status, recipient),
    fields: fields.filter((f) => f.recipient_id === recipient.id).map(withDocument),
    other_fields: fields.filter((f) => f.recipient_id !== recipient.id && f.value !== null).map(withDocument),
    documents: documents.map((d) => ({
      document_id: d.id,
      filename: d.filename,
      sha256: d.current_sha256 ?? d.sha256,
      pages: storedInfo(d).pages.map((p, i) => ({
        page_number: i + 1,
        width: p.width,
        height: p.height,
        rotate: p.rotate,
      })),
    })),
    session: {
      expires_at: session.expiresAt,
      mode: session.mode,
      origin: session.origin,
      return_url: session.returnUrl,
    },
    sandbox: mock?.recipient_id === recipient.id,
  };
}
