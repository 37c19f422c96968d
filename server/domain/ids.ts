/**
 * Time-ordered ids for rows that are created often (envelopes, recipients): UUID version 7 (RFC 9562),
 * 48 bits of Unix time in milliseconds, then 74 random bits. Still a uuid to every client.
 *
 * Why not randomUUID (version 4): a random key lands on a random leaf of every index it is part of, so
 * each insert dirties its own pages and every commit writes them all to the WAL. Ids that grow with time
 * are appended at the right edge of those indexes, where the inserts of one commit share their pages (see
 * docs/decisions.md). The time in the id says no more than the row's created_at; access never depends on
 * an id being unguessable (API keys and signing tokens do that), and 74 random bits are plenty anyway.
 */
import { randomFillSync } from 'node:crypto';

/** Random bytes are drawn in bulk (as randomUUID does) and used 10 at a time. */
const pool = Buffer.alloc(10 * 512);
let offset = pool.length;

export function newId(nowMs: number = Date.now()): string {
  if (offset + 10 > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const random = pool.toString('hex', offset, offset + 10);
  offset += 10;
  const time = nowMs.toString(16).padStart(12, '0');
  // Version 7 in the 13th hex digit; variant 10xx in the 17th.
  const variant = (0x8 | (parseInt(random[3]!, 16) & 0x3)).toString(16);
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${random.slice(0, 3)}-${variant}${random.slice(4, 7)}-${random.slice(7, 19)}`;
}
