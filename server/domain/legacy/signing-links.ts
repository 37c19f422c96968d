/**
 * Per-recipient signing links of a legacy document: in the headless create response (signing_info) and from
 * POST /document/signing-links/. They stand in for the invitation mail, so they live as long as invitation
 * links do: MOHAR_SIGNING_LINK_TTL_DAYS, never past the envelope's expiry. Each issue replaces the recipient's
 * earlier links (link-lifetime.ts). A link of a recipient whose turn has not come yet works once it has (the
 * signer view says "wait" until then). Only the token's hash is stored.
 */
import type { Context } from '../context.js';
import { FINISHED_STATUSES, isActor } from '../workflow/routing.js';
import { insertSession, type LinkCreator } from '../workflow/sessions.js';
import { keptLinkExpiry } from '../workflow/link-lifetime.js';
import { findLegacyDocument } from './legacy-documents.js';

export interface SigningLink {
  name: string;
  email: string;
  sequence: number;
  role: string;
  status: string;
  signing_url: string;
  expires_at: string;
}

/** The legacy calls are made with the account's key: their links are audited as made by it. */
const BY_ACCOUNT_KEY: LinkCreator = { type: 'api_key', id: null };

/** Fresh links for every recipient of a sent envelope who still has to act (none once it is finished). */
export async function issueSigningLinks(
  ctx: Context,
  envelopeId: string,
  by: LinkCreator = BY_ACCOUNT_KEY,
): Promise<SigningLink[]> {
  const envelope = await ctx.db
    .selectFrom('envelopes')
    .select(['status', 'expires_at'])
    .where('id', '=', envelopeId)
    .executeTakeFirstOrThrow();
  if (envelope.status !== 'sent') return [];
  const recipients = await ctx.db
    .selectFrom('recipients')
    .select(['id', 'name', 'email', 'sequence', 'role', 'status'])
    .where('envelope_id', '=', envelopeId)
    .orderBy('position')
    .execute();
  const now = ctx.now();
  const expiresAt = keptLinkExpiry(ctx.config, envelope.expires_at, now);
  const links: SigningLink[] = [];
  for (const r of recipients) {
    if (!isActor(r) || FINISHED_STATUSES.has(r.status) || r.status === 'declined') continue;
    const url = await insertSession(ctx.db, ctx.config.baseUrl, {
      envelopeId,
      recipientId: r.id,
      mode: 'redirect',
      origin: null,
      returnUrl: null,
      expiresAt,
      now,
      kind: 'legacy_link',
      by,
    });
    links.push({
      name: r.name,
      email: r.email,
      sequence: r.sequence,
      role: r.role,
      status: r.status,
      signing_url: url,
      expires_at: expiresAt.toISOString(),
    });
  }
  return links;
}

export async function signingLinksOf(
  ctx: Context,
  accountId: string,
  documentId: number,
  by: LinkCreator = BY_ACCOUNT_KEY,
): Promise<{ status: 'success'; document_id: number; signing_links: SigningLink[] }> {
  const document = await findLegacyDocument(ctx, accountId, documentId);
  return {
    status: 'success',
    document_id: documentId,
    signing_links: await issueSigningLinks(ctx, document.envelopeId, by),
  };
}
