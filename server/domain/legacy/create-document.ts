/**
 * POST /document/recipients/create/: a document and its recipients in one call. A legacy document is an
 * envelope made through the envelope operations (create, attach, fields, send), also visible through v1,
 * with an integer document id (legacy_documents) that its metadata names.
 *
 * Order: everything that needs no I/O is checked first, then the monthly quota is reserved (so a refused call
 * costs nothing), then doc_url is fetched and taken in like an upload, the signature boxes are checked
 * against the real pages, and only then is anything created. A failure after that gives the quota unit back,
 * and an envelope already created is voided (never left half-made; its id stays taken).
 */
import { MoharError, type ErrorItem } from '../../../common/errors.js';
import type { Context } from '../context.js';
import { uploadDocument, type PageView } from '../documents/documents.js';
import { attachDocument } from '../envelopes/attach-document.js';
import { checkRedirectUrl, createEnvelope } from '../envelopes/create-envelope.js';
import { FIELD_TYPES } from '../../../common/fields.js';
import type { RecipientInput } from '../envelopes/model.js';
import { replaceFields } from '../envelopes/replace-fields.js';
import type { KeyIdentity } from '../keys/api-keys.js';
import { releaseCall, reserveCall } from '../limits/monthly-quota.js';
import { sendEnvelope } from '../workflow/send-envelope.js';
import { voidEnvelope } from '../workflow/void-envelope.js';
import { DOC_URL_PATH, fetchDocumentUrl } from './fetch-document.js';
import { issueSigningLinks } from './signing-links.js';
import { recipientModel, type LegacySignatureType } from './vocabulary.js';
import { assertAadhaarAvailable } from '../aadhaar/availability.js';

/** The Signature field a legacy signer gets: its top-left corner at (x_cor, y_cor), this size in points. */
export const SIGNATURE_WIDTH = 150;
export const SIGNATURE_HEIGHT = 50;
/** Near the right or bottom edge the box shrinks to fit the page, down to this size. */
export const MIN_SIGNATURE_WIDTH = 50;
export const MIN_SIGNATURE_HEIGHT = 20;

export interface LegacyRecipientInput {
  name: string;
  email: string;
  typeOfSignature: LegacySignatureType;
  sequence?: number;
  page_no?: number;
  x_cor?: number;
  y_cor?: number;
}

export interface LegacyCreateInput {
  companyDetails: { api_key: string; is_mail_required?: boolean };
  documentDetails: { doc_url: string; redirect_url?: string };
  recipientDetail: LegacyRecipientInput[];
}

export interface SigningInfo {
  name: string;
  email: string;
  sequence: number;
  signing_url: string;
}

export interface LegacyCreateResponse {
  status: 'success';
  document_id: number;
  envelope_id: string;
  signing_info?: SigningInfo[];
}

function invalid(errors: ErrorItem[]): MoharError {
  return new MoharError('validation_failed', errors.map((e) => `${e.path} ${e.message}`).join('; '), { errors });
}

/** Checks that need neither the PDF nor the database. */
function checkRecipients(ctx: Context, recipients: readonly LegacyRecipientInput[]): void {
  const errors: ErrorItem[] = [];
  // Refused before spending quota when this server is not an eSign ASP (the one rule: aadhaar/availability.ts).
  assertAadhaarAvailable(
    ctx.config,
    recipients.map((r) => ({ name: r.name, signature_method: recipientModel(r.typeOfSignature).signature_method })),
    (i) => `/recipientDetail/${i}/typeOfSignature`,
    ctx.mode,
  );
  recipients.forEach((r, i) => {
    if (recipientModel(r.typeOfSignature).role !== 'signer') return;
    for (const key of ['page_no', 'x_cor', 'y_cor'] as const) {
      if (r[key] === undefined) {
        errors.push({
          path: `/recipientDetail/${i}/${key}`,
          message: `is required for a ${r.typeOfSignature} recipient (it places the Signature field)`,
        });
      }
    }
  });
  if (errors.length > 0) throw invalid(errors);
}

interface Box {
  page_number: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Signature boxes on the real pages (visible size, top-left origin), or every problem at once. */
function placeSignatures(recipients: readonly LegacyRecipientInput[], pages: readonly PageView[]): (Box | null)[] {
  const errors: ErrorItem[] = [];
  const boxes = recipients.map((r, i): Box | null => {
    if (recipientModel(r.typeOfSignature).role !== 'signer') return null;
    const page = pages[r.page_no! - 1];
    if (!page) {
      errors.push({
        path: `/recipientDetail/${i}/page_no`,
        message: `page ${r.page_no} is not in the document (pages 1 to ${pages.length})`,
      });
      return null;
    }
    const width = Math.min(SIGNATURE_WIDTH, page.width - r.x_cor!);
    const height = Math.min(SIGNATURE_HEIGHT, page.height - r.y_cor!);
    if (width < MIN_SIGNATURE_WIDTH) {
      errors.push({
        path: `/recipientDetail/${i}/x_cor`,
        message: `x_cor ${r.x_cor} leaves less than ${MIN_SIGNATURE_WIDTH} points for the signature on page ${r.page_no}, which is ${page.width} points wide`,
      });
    }
    if (height < MIN_SIGNATURE_HEIGHT) {
      errors.push({
        path: `/recipientDetail/${i}/y_cor`,
        message: `y_cor ${r.y_cor} leaves less than ${MIN_SIGNATURE_HEIGHT} points for the signature on page ${r.page_no}, which is ${page.height} points high`,
      });
    }
    return { page_number: r.page_no!, x: r.x_cor!, y: r.y_cor!, width, height };
  });
  if (errors.length > 0) throw invalid(errors);
  return boxes;
}

export async function createLegacyDocument(
  base: Context,
  key: KeyIdentity,
  input: LegacyCreateInput,
): Promise<LegacyCreateResponse> {
  // The document, its envelope and upload are of the key's mode: a test key's are test (no mail delivered, TEST mark,
  // test seal).
  const ctx: Context = { ...base, mode: key.mode };
  const accountId = key.accountId;
  const test = key.mode === 'test';
  const headless = input.companyDetails.is_mail_required === false;
  // Read afresh: suspension and the quota set by `mohar account` take effect at once for creates.
  const account = await ctx.db
    .selectFrom('accounts')
    .select(['suspended', 'monthly_call_limit'])
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  if (account.suspended === 1) {
    throw new MoharError(
      'account_suspended',
      'this account is suspended; ask the operator of this Mohar server to resume it',
    );
  }
  checkRedirectUrl(input.documentDetails.redirect_url, '/documentDetails/redirect_url');
  checkRecipients(ctx, input.recipientDetail);

  const reservation = await reserveCall(ctx, accountId, account.monthly_call_limit, test);
  let envelopeId: string | undefined;
  try {
    const fetched = await fetchDocumentUrl(ctx, input.documentDetails.doc_url);
    const document = await uploadDocument(ctx, accountId, fetched.filename, fetched.bytes).catch((error: unknown) => {
      if (error instanceof MoharError && !error.errors) {
        throw new MoharError(error.code, `documentDetails.doc_url: ${error.message}`, {
          errors: [{ path: DOC_URL_PATH, message: error.message }],
        });
      }
      throw error;
    });
    const boxes = placeSignatures(input.recipientDetail, document.pages);

    const legacy = await ctx.db
      .insertInto('legacy_documents')
      .values({
        account_id: accountId,
        envelope_id: null,
        send_mail: headless ? 0 : 1,
        test: test ? 1 : 0,
        created_at: ctx.now().toISOString(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const documentId = Number(legacy.id);
    const recipients: RecipientInput[] = input.recipientDetail.map((r) => ({
      name: r.name,
      email: r.email,
      ...recipientModel(r.typeOfSignature),
      ...(r.sequence === undefined ? {} : { sequence: r.sequence }),
    }));
    const envelope = await createEnvelope(ctx, accountId, {
      title: document.filename,
      routing_order: 'sequential',
      ...(input.documentDetails.redirect_url === undefined ? {} : { redirect_url: input.documentDetails.redirect_url }),
      metadata: {
        legacy_document_id: documentId,
        ...(test ? { test: true } : {}),
        ...(headless ? { headless: true } : {}),
      },
      recipients,
      delivery: headless ? 'none' : 'email',
    });
    envelopeId = envelope.id;
    await ctx.db
      .updateTable('legacy_documents')
      .set({ envelope_id: envelope.id })
      .where('id', '=', documentId)
      .execute();
    await attachDocument(ctx, accountId, envelope.id, { kind: 'workspace', documentId: document.document_id });
    const fields = boxes.flatMap((box, i) =>
      box === null
        ? []
        : [{ recipient_id: envelope.recipients[i]!.recipient_id, field_type: FIELD_TYPES.SIGNATURE, ...box }],
    );
    await replaceFields(ctx, accountId, envelope.id, document.document_id, fields);
    await sendEnvelope(ctx, accountId, envelope.id);
    const response: LegacyCreateResponse = { status: 'success', document_id: documentId, envelope_id: envelope.id };
    if (headless) {
      response.signing_info = (await issueSigningLinks(ctx, envelope.id, { type: 'api_key', id: key.keyId })).map(
        (l) => ({ name: l.name, email: l.email, sequence: l.sequence, signing_url: l.signing_url }),
      );
    }
    return response;
  } catch (error) {
    await releaseCall(ctx, reservation);
    if (envelopeId !== undefined) {
      await voidEnvelope(ctx, accountId, envelopeId, 'the legacy create call failed').catch(() => undefined);
    }
    throw error;
  }
}
