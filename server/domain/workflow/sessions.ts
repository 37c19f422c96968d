/**
 * Signing sessions: a short-lived link bound to one recipient. Only the SHA-256 of the token is stored.
 * signing_url = {MOHAR_BASE_URL}/sign/{token}, valid 15 minutes.
 */
import { createHash, randomBytes } from 'node:crypto';
import { LEGACY_BASE, SIGNING_PAGE_BASE } from '../../../common/api-paths.js';
import { MoharError } from '../../../common/errors.js';
import type { Kysely } from 'kysely';
import type { Database, SigningLinkKind } from '../../storage/schema.js';
import { KEPT_LINK_KINDS, revokeLinks } from './link-lifetime.js';
import { appendAudit } from '../../audit/index.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import { findEnvelope } from '../envelopes/find-envelope.js';
import { allowedOrigins } from '../accounts/settings.js';
import { ACTIVE_STATUSES } from './routing.js';
import { FINISHED_ENVELOPE_STATUSES } from './states.js';

/** A recipient in one of these has acted: their links are used up. */
const USED_RECIPIENT_STATUSES: ReadonlySet<string> = new Set([
  'signed',
  'approved',
  'reviewed',
  'declined',
  'completed',
]);

export const SESSION_SECONDS = 15 * 60;

/**
 * How a signer acting through a link of this kind was reached: recorded with every act (its audit row, the
 * certificate).
 */
export const REACHED_BY: Readonly<Record<SigningLinkKind, string>> = {
  mail: 'mail_link',
  session: 'signing_session',
  legacy_link: 'legacy_link',
  sandbox: 'sandbox_link',
};

/** Who made a link: the API key or console user that asked for it, or Mohar itself (mails). */
export interface LinkCreator {
  readonly type: 'api_key' | 'user' | 'system';
  readonly id: string | null;
}

const BY_MOHAR: LinkCreator = { type: 'system', id: null };

export interface SessionRequest {
  recipient_id: string;
  mode?: 'redirect' | 'embedded';
  origin?: string;
  return_url?: string;
}

export interface SessionView {
  signing_url: string;
  expires_at: string;
  recipient_id: string;
  mode: 'redirect' | 'embedded';
  origin: string | null;
}

export function hashSessionToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** An origin is scheme://host[:port], nothing else. */
export function normalizeOrigin(value: string): string | undefined {
  if (!URL.canParse(value)) return undefined;
  const url = new URL(value);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  return url.origin;
}

/**
 * The signing page navigates to return_url after the act: only http(s), or it would run script (javascript:,
 * data:) in the page's origin; an embedded session's stays on its own (allowed) origin.
 */
function checkReturnUrl(value: string, origin: string | null): string {
  const refuse = (message: string) =>
    new MoharError('validation_failed', `return_url ${message}`, { errors: [{ path: '/return_url', message }] });
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) throw refuse('must be an http(s) URL');
  if (origin !== null && url.origin !== origin) throw refuse(`must be on the session origin ${origin}`);
  return value;
}

export async function createSigningSession(
  ctx: Context,
  accountId: string,
  envelopeId: string,
  input: SessionRequest,
  by: LinkCreator = BY_MOHAR,
): Promise<SessionView> {
  const envelope = await findEnvelope(ctx, accountId, envelopeId);
  const recipient = await ctx.db
    .selectFrom('recipients')
    .selectAll()
    .where('id', '=', input.recipient_id)
    .where('envelope_id', '=', envelopeId)
    .executeTakeFirst();
  if (!recipient) {
    throw new MoharError('recipient_not_found', `recipient ${input.recipient_id} is not on envelope ${envelopeId}`);
  }
  if (envelope.status !== 'sent' || !ACTIVE_STATUSES.has(recipient.status)) {
    throw new MoharError(
      'recipient_not_active',
      `recipient ${recipient.name} cannot act now (envelope ${envelope.status}, recipient ${recipient.status})`,
      { extra: { envelope_status: envelope.status, recipient_status: recipient.status } },
    );
  }
  const mode = input.mode ?? 'embedded';
  let origin: string | null = null;
  if (mode === 'embedded') {
    if (!input.origin) {
      throw new MoharError('validation_failed', 'origin is required in embedded mode', {
        errors: [{ path: '/origin', message: 'required when mode is embedded' }],
      });
    }
    origin = normalizeOrigin(input.origin) ?? null;
    if (!origin) {
      throw new MoharError('validation_failed', 'origin must be scheme://host[:port]', {
        errors: [{ path: '/origin', message: 'not an origin' }],
      });
    }
    if (!(await allowedOrigins(ctx, accountId)).includes(origin)) {
      throw new MoharError(
        'origin_not_allowed',
        `${origin} is not an allowed origin of this account (PUT ${LEGACY_BASE}/account/settings/)`,
      );
    }
  }
  const returnUrl = input.return_url === undefined ? null : checkReturnUrl(input.return_url, origin);
  const now = ctx.now();
  const expiresAt = new Date(now.getTime() + SESSION_SECONDS * 1000);
  const url = await insertSession(ctx.db, ctx.config.baseUrl, {
    envelopeId,
    recipientId: recipient.id,
    mode,
    origin,
    returnUrl,
    expiresAt,
    now,
    kind: 'session',
    by,
  });
  return { signing_url: url, expires_at: iso(expiresAt), recipient_id: recipient.id, mode, origin };
}

/**
 * Writes a session (only the token's hash) and returns its signing URL. A kept link (kind mail or legacy_link,
 * see link-lifetime.ts) revokes the recipient's earlier kept links first: a reissue replaces, it does not add.
 * Audited in the same transaction (signing_session.created or signing_link.created): who made it, for whom,
 * what kind; never the token or its hash.
 */
export async function insertSession(
  db: Kysely<Database>,
  baseUrl: string,
  s: {
    envelopeId: string;
    recipientId: string;
    mode: string;
    origin: string | null;
    returnUrl: string | null;
    expiresAt: Date;
    now: Date;
    kind?: SigningLinkKind;
    by?: LinkCreator;
  },
): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  const kind = s.kind ?? 'session';
  const by = s.by ?? BY_MOHAR;
  const write = async (trx: Kysely<Database>) => {
    if (KEPT_LINK_KINDS.includes(kind)) await revokeLinks(trx, s.recipientId, s.now, KEPT_LINK_KINDS);
    await trx
      .insertInto('signing_sessions')
      .values({
        token_hash: hashSessionToken(token),
        envelope_id: s.envelopeId,
        recipient_id: s.recipientId,
        mode: s.mode,
        origin: s.origin,
        return_url: s.returnUrl,
        expires_at: iso(s.expiresAt),
        created_at: iso(s.now),
        kind,
      })
      .execute();
    await appendAudit(trx, {
      envelopeId: s.envelopeId,
      actorType: by.type,
      actorId: by.id,
      action: kind === 'session' ? 'signing_session.created' : 'signing_link.created',
      details: {
        recipient_id: s.recipientId,
        reached_by: REACHED_BY[kind],
        mode: s.mode,
        origin: s.origin,
        expires_at: iso(s.expiresAt),
      },
      at: s.now,
    });
  };
  if (db.isTransaction) await write(db);
  else await db.transaction().execute(write);
  return `${baseUrl}${SIGNING_PAGE_BASE}/${token}`;
}

export interface ResolvedSession {
  readonly tokenHash: string;
  readonly envelopeId: string;
  readonly recipientId: string;
  readonly accountId: string;
  readonly mode: string;
  readonly origin: string | null;
  readonly returnUrl: string | null;
  readonly expiresAt: string;
  /** How the signer was reached (REACHED_BY): the link's kind. */
  readonly reachedBy: string;
}

/**
 * The session behind a token, refused with the reason a person can act on:
 * - unknown, or past its expiry: signing_session_expired (no oracle for tokens that never existed);
 * - replaced by a newer link of the recipient, or revoked (revoke-links): signing_link_revoked;
 * - the envelope is finished (voided, declined, expired, completed): envelope_closed with envelope_status (and
 *   void_reason, the sender's words, when voided);
 * - this recipient has acted: signing_link_used with recipient_status.
 * Links are not deleted when someone acts: these checks end them, and the signing page can say why.
 * `purpose: 'download'` (the recipient's copy of the final documents) also accepts used links and a completed envelope.
 */
export async function resolveSession(
  ctx: Context,
  token: string,
  purpose: 'act' | 'download' = 'act',
): Promise<ResolvedSession> {
  const row = await ctx.db
    .selectFrom('signing_sessions')
    .innerJoin('envelopes', 'envelopes.id', 'signing_sessions.envelope_id')
    .innerJoin('recipients', 'recipients.id', 'signing_sessions.recipient_id')
    .select([
      'signing_sessions.token_hash',
      'signing_sessions.envelope_id',
      'signing_sessions.recipient_id',
      'signing_sessions.mode',
      'signing_sessions.origin',
      'signing_sessions.return_url',
      'signing_sessions.expires_at',
      'signing_sessions.revoked_at',
      'signing_sessions.kind',
      'envelopes.account_id',
      'envelopes.status as envelope_status',
      'envelopes.status_reason as envelope_status_reason',
      'recipients.status as recipient_status',
    ])
    .where('signing_sessions.token_hash', '=', hashSessionToken(token))
    .executeTakeFirst();
  if (!row || row.expires_at <= iso(ctx.now())) {
    throw new MoharError('signing_session_expired', 'this signing link has expired; ask the sender for a new one');
  }
  if (row.revoked_at) {
    throw new MoharError(
      'signing_link_revoked',
      'this signing link is no longer valid: a newer link was sent, or the sender withdrew it; use the most recent one or ask the sender',
    );
  }
  const download = purpose === 'download';
  if (FINISHED_ENVELOPE_STATUSES.has(row.envelope_status) && !(download && row.envelope_status === 'completed')) {
    throw new MoharError('envelope_closed', `the envelope is ${row.envelope_status}: nobody can act on it any more`, {
      extra: {
        envelope_status: row.envelope_status,
        // The void dialog tells the sender that recipients see the reason: the signing page shows it.
        ...(row.envelope_status === 'voided' && row.envelope_status_reason
          ? { void_reason: row.envelope_status_reason }
          : {}),
      },
    });
  }
  if (USED_RECIPIENT_STATUSES.has(row.recipient_status) && !download) {
    throw new MoharError('signing_link_used', `you have already acted on this envelope (${row.recipient_status})`, {
      extra: { recipient_status: row.recipient_status },
    });
  }
  return {
    tokenHash: row.token_hash,
    envelopeId: row.envelope_id,
    recipientId: row.recipient_id,
    accountId: row.account_id,
    mode: row.mode,
    origin: row.origin,
    returnUrl: row.return_url,
    expiresAt: row.expires_at,
    reachedBy: REACHED_BY[row.kind ?? 'session'],
  };
}

/** The origin allowed to frame the signing page of this token (embedded sessions), whatever the session's state. */
export async function embeddingOrigin(ctx: Context, token: string): Promise<string | null> {
  const row = await ctx.db
    .selectFrom('signing_sessions')
    .select(['mode', 'origin'])
    .where('token_hash', '=', hashSessionToken(token))
    .executeTakeFirst();
  return row?.mode === 'embedded' ? row.origin : null;
}
