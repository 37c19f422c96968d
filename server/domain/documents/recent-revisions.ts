/**
 * The bytes of the revisions the workflow just stored, kept in memory for the act that reads them next: an
 * upload is read back by send, send's certified document by the first act, an act's revision by the next
 * one. Reading them back from the blob store cost a file open, stat, read and close per act, each a
 * round trip through libuv's threads and one more wait on the busy event loop.
 *
 * Safe because blobs are content-addressed: the bytes under a SHA-256 never change, so a remembered copy is
 * exactly what the store would return (the blob collector deletes only blobs no row refers to, and the
 * workflow reads only referenced ones). Bounded (32 MB, documents over 4 MB not kept), oldest first out;
 * callers get their own copy, so nothing they do to it reaches the next reader.
 */
import type { Context } from '../context.js';

const LIMIT_BYTES = 32 * 1024 * 1024;
const LARGEST_KEPT = 4 * 1024 * 1024;

const recent = new Map<string, Buffer>();
let held = 0;

function remember(sha256: string, bytes: Uint8Array): void {
  if (bytes.length > LARGEST_KEPT || recent.has(sha256)) return;
  recent.set(sha256, Buffer.from(bytes));
  held += bytes.length;
  for (const [oldest, kept] of recent) {
    if (held <= LIMIT_BYTES) break;
    recent.delete(oldest);
    held -= kept.length;
  }
}

/** Stores a revision (ctx.blobs.put) and keeps its bytes for the next reader. */
export async function storeRevision(ctx: Pick<Context, 'blobs'>, bytes: Uint8Array): Promise<string> {
  const sha256 = await ctx.blobs.put(bytes);
  remember(sha256, bytes);
  return sha256;
}

/** The bytes stored under `sha256` (ctx.blobs.get), from memory when they were stored or read lately. */
export async function readRevision(ctx: Pick<Context, 'blobs'>, sha256: string): Promise<Buffer> {
  const kept = recent.get(sha256);
  if (kept) return Buffer.from(kept);
  const bytes = await ctx.blobs.get(sha256);
  remember(sha256, bytes);
  return bytes;
}
