/** `?mine=true` on GET /envelopes and GET /templates (issue 15): the logged-in console user's own. */
import type { FastifyRequest } from 'fastify';
import { MoharError } from '../../common/errors.js';
import type { Creator } from '../domain/users/creators.js';

/** The caller's user id when `mine` is true; an API key is no user, so it has nothing of its own: 422. */
export function mineFilter(request: FastifyRequest, mine: boolean | undefined): { created_by_user_id?: string } {
  if (mine !== true) return {};
  if (!request.user) {
    throw new MoharError(
      'validation_failed',
      'mine=true needs a console login token (Authorization: Bearer): an API key is not a user, so nothing is "mine" for it; leave mine out to list the whole account',
      {
        errors: [{ path: 'querystring/mine', message: 'only with a login token' }],
      },
    );
  }
  return { created_by_user_id: request.user.userId };
}

/** The console user making the call; undefined for an API key. */
export function creatorOf(request: FastifyRequest): Creator | undefined {
  return request.user ? { userId: request.user.userId, email: request.user.email } : undefined;
}
