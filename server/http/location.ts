/**
 * The Location of a created resource (RFC 9110 §10.2.2): a route's onSend hook reads the id from the answer it
 * sends, so a replayed Idempotency-Key answer (sent as stored JSON text) names the same resource.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * onSend hook: on a `status` answer, `Location: {prefix}/{collection}/{answer[idMember]}`. The answer is JSON text
 * here (serialized by the route's schema or replayed as stored).
 */
export function locationHeader(prefix: string, collection: string, idMember: string, status = 201) {
  return async (_request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    if (reply.statusCode !== status || typeof payload !== 'string') return payload;
    const id = (JSON.parse(payload) as Record<string, unknown>)[idMember];
    if (typeof id === 'string') void reply.header('location', `${prefix}/${collection}/${encodeURIComponent(id)}`);
    return payload;
  };
}
