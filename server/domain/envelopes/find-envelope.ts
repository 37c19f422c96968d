import { MoharError } from '../../../common/errors.js';
import type { Context } from '../context.js';

/**
 * An envelope of the caller's account and, on envelope-API requests, of the caller's mode (a test key sees only
 * test envelopes, a live key or a console login only live ones: ctx.mode, http/auth-hooks.ts forCaller), or
 * envelope_not_found (also for other accounts' and the other mode's ids). Every load by id goes through here.
 */
export async function findEnvelope(ctx: Context, accountId: string, envelopeId: string) {
  const row = await ctx.db
    .selectFrom('envelopes')
    .selectAll()
    .where('id', '=', envelopeId)
    .where('account_id', '=', accountId)
    .$if(ctx.mode !== undefined, (q) => q.where('mode', '=', ctx.mode!))
    .executeTakeFirst();
  if (!row) throw new MoharError('envelope_not_found', `no envelope ${envelopeId}`);
  return row;
}

export async function findDraftEnvelope(ctx: Context, accountId: string, envelopeId: string) {
  const row = await findEnvelope(ctx, accountId, envelopeId);
  if (row.status !== 'draft') {
    throw new MoharError('envelope_not_draft', `the envelope is ${row.status}; only drafts can be changed`, {
      extra: { envelope_status: row.status },
    });
  }
  return row;
}
