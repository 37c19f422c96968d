/**
 * The Location of a created resource (RFC 9110 §10.2.2): a route's onSend hook reads the id from the answer it
 * sends, so a replayed Idempotency-Key answer (sent as stored JSON text) names the same resource.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * The string value of a top-level member of a JSON object's text. Our serializers write the id first, so it
 * is read off the start of the text (the whole answer was parsed for it on every create: 5% of the route's
 * CPU); anything else (another order, an escape in the value) is parsed in full.
 */
export function topLevelString(json: string, member: string): string | undefined {
  const lead = `{"${member}":"`;
  if (json.startsWith(lead)) {
    const end = json.indexOf('"', lead.length);
    const value = json.slice(lead.length, end);
    if (end > 0 && !value.includes('\\')) return value;
  }
  const parsed: unknown = JSON.parse(json);
  const value = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>)[member] : undefined;
  return typeof value === 'string' ? value : undefined;
}

/**
 * onSend hook: on a `status` answer, `Location: {prefix}/{collection}/{answer[idMember]}`. The answer is JSON text
 * here (serialized by the route's schema or replayed as stored).
 */
export function locationHeader(prefix: string, collection: string, idMember: string, status = 201) {
  return async (_request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    if (reply.statusCode !== status || typeof payload !== 'string') return payload;
    const id = topLevelString(payload, idMember);
    if (id !== undefined) void reply.header('location', `${prefix}/${collection}/${encodeURIComponent(id)}`);
    return payload;
  };
}
