/**
 * POST {api_base}/sandbox/mock-dsc/requests: a mock USB DSC request. It is an ordinary envelope (one PDF,
 * one DSC signer, one Signature field) sent without mail, plus a 24-hour signing link whose page offers
 * "Sign with a test certificate". Only a test key of a test-mode account may make one.
 */
import { randomUUID } from 'node:crypto';
import { MoharError, type ErrorItem } from '../../../common/errors.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import { attachDocument } from '../envelopes/attach-document.js';
import { createEnvelope } from '../envelopes/create-envelope.js';
import { FIELD_TYPES } from '../../../common/fields.js';
import { replaceFields } from '../envelopes/replace-fields.js';
import type { KeyIdentity } from '../keys/api-keys.js';
import { sendEnvelope } from '../workflow/send-envelope.js';
import { insertSession } from '../workflow/sessions.js';
import { bindEnvelopeEvents, createSandboxEndpoint } from '../webhooks/sandbox-endpoint.js';
import { checkWebhookUrl } from '../../webhooks/url-policy.js';
import { signatureFieldFor } from './signature-placement.js';

export const MOCK_LINK_HOURS = 24;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface MockRequestInput {
  readonly file: { filename: string | undefined; bytes: Buffer } | undefined;
  readonly signer_name?: string;
  readonly signer_email?: string;
  readonly external_id?: string;
  readonly webhook_url?: string;
}

export interface CreatedMockRequest {
  public_id: string;
  status: 'pending';
  signing_url: string;
  expires_at: string;
  envelope_id: string;
  document_id: string;
  webhook_secret?: string;
}

export function checkMockSigningAllowed(key: KeyIdentity | null): KeyIdentity {
  if (!key || key.mode !== 'test' || !key.testMode) {
    throw new MoharError(
      'mock_signing_not_enabled',
      'mock DSC signing needs a qsk_test_ key of an account in test mode (mohar admin create --test-mode)',
    );
  }
  return key;
}

function validate(input: MockRequestInput): {
  name: string;
  email: string;
  file: { filename: string | undefined; bytes: Buffer };
} {
  const errors: ErrorItem[] = [];
  const name = input.signer_name?.trim() ?? '';
  const email = input.signer_email?.trim() ?? '';
  if (!input.file) errors.push({ path: '/file', message: 'send the PDF as a multipart part named "file"' });
  if (name.length === 0 || name.length > 200) {
    errors.push({ path: '/signer_name', message: 'required, 1 to 200 characters' });
  }
  if (!EMAIL.test(email) || email.length > 320) {
    errors.push({ path: '/signer_email', message: 'required, an e-mail address' });
  }
  if (input.external_id !== undefined && (input.external_id.length === 0 || input.external_id.length > 200)) {
    errors.push({ path: '/external_id', message: '1 to 200 characters' });
  }
  if (errors.length > 0 || !input.file) {
    throw new MoharError(
      'validation_failed',
      `invalid mock DSC request: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}`,
      { errors },
    );
  }
  return { name, email, file: input.file };
}

export async function createMockRequest(
  base: Context,
  key: KeyIdentity | null,
  input: MockRequestInput,
): Promise<CreatedMockRequest> {
  const { accountId } = checkMockSigningAllowed(key);
  // Only test keys get here: the request's envelope is test data (TEST mark, test seal, seen by test keys only).
  const ctx: Context = { ...base, mode: 'test' };
  const { name, email, file } = validate(input);
  // The webhook URL is checked first (it resolves the host; outside any transaction): a refused URL leaves nothing
  // behind.
  const webhookUrl = input.webhook_url
    ? await checkWebhookUrl(input.webhook_url, { allowPrivate: ctx.config.webhookAllowPrivate })
    : undefined;

  const envelope = await createEnvelope(ctx, accountId, {
    title: `Mock DSC request: ${file.filename ?? 'document.pdf'}`.slice(0, 200),
    ...(input.external_id ? { external_id: input.external_id } : {}),
    expire_in_days: 1,
    metadata: { sandbox: 'mock-dsc' },
    recipients: [{ name, email, role: 'signer', signature_method: 'dsc', sequence: 1 }],
    // The signer is probably not a real person: nobody is mailed, the request answers with the link.
    delivery: 'none',
  });
  const recipientId = envelope.recipients[0]!.recipient_id;
  const document = await attachDocument(ctx, accountId, envelope.id, {
    kind: 'upload',
    filename: file.filename,
    bytes: file.bytes,
  });
  await replaceFields(ctx, accountId, envelope.id, document.document_id, [
    { recipient_id: recipientId, field_type: FIELD_TYPES.SIGNATURE, required: true, ...signatureFieldFor(document) },
  ]);

  const now = ctx.now();
  const expiresAt = new Date(now.getTime() + MOCK_LINK_HOURS * 3600_000);
  const publicId = randomUUID();
  // Written before sending: the mail policy reads it (a mock request mails nobody), and the binding must
  // exist before the envelope can complete so its one envelope.completed reaches the request's webhook.
  const webhook = await ctx.db.transaction().execute(async (trx) => {
    const endpoint = webhookUrl
      ? await createSandboxEndpoint(ctx, trx, { accountId, url: webhookUrl, checked: true })
      : undefined;
    if (endpoint) {
      await bindEnvelopeEvents(trx, { envelopeId: envelope.id, endpointId: endpoint.endpointId, at: iso(now) });
    }
    await trx
      .insertInto('sandbox_requests')
      .values({
        public_id: publicId,
        account_id: accountId,
        envelope_id: envelope.id,
        document_id: document.document_id,
        recipient_id: recipientId,
        webhook_endpoint_id: endpoint?.endpointId ?? null,
        certificate: null,
        created_at: iso(now),
        expires_at: iso(expiresAt),
        signed_at: null,
      })
      .execute();
    return endpoint;
  });
  await sendEnvelope(ctx, accountId, envelope.id);
  const signingUrl = await insertSession(ctx.db, ctx.config.baseUrl, {
    envelopeId: envelope.id,
    recipientId,
    mode: 'redirect',
    origin: null,
    returnUrl: null,
    expiresAt,
    now,
    kind: 'sandbox',
  });
  return {
    public_id: publicId,
    status: 'pending',
    signing_url: signingUrl,
    expires_at: iso(expiresAt),
    envelope_id: envelope.id,
    document_id: document.document_id,
    ...(webhook ? { webhook_secret: webhook.secret } : {}),
  };
}
