/**
 * A full disk, whichever layer noticed it: the file blob store (ENOSPC, or EDQUOT when a quota is spent),
 * SQLite (SQLITE_FULL: it could not grow the database or its WAL) or PostgreSQL (SQLSTATE 53100 disk_full,
 * "could not extend file"). All mean the same to a client: the write was refused, nothing of it was kept,
 * and the same request may succeed once an operator frees space. This is the one place that knows these
 * codes; server/http/problem.ts turns what it recognises into 503 storage_full. It lives in the domain, not in
 * storage/, because it is read where errors arrive (the domain's operations and the HTTP layer above them), and
 * the HTTP layer may import the domain but not storage.
 */
import { MoharError } from '../../common/errors.js';

const FULL_DISK_CODES: ReadonlySet<string> = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL', '53100']);

/** How long a client should wait before retrying: freeing space takes an operator, not milliseconds. */
export const STORAGE_FULL_RETRY_SECONDS = 60;

/** Causes are followed this deep: a driver error may be wrapped by Kysely, a domain error or a worker. */
const MAX_CAUSE_DEPTH = 8;

/** The full-disk code of the error or of an error it was caused by (ENOSPC, SQLITE_FULL…), if any. */
export function fullDiskCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && FULL_DISK_CODES.has(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The MoharError a full disk becomes (503 storage_full, retry later), or undefined for any other error. */
export function storageFullError(error: unknown): MoharError | undefined {
  const code = fullDiskCode(error);
  if (code === undefined) return undefined;
  return new MoharError(
    'storage_full',
    `the server has no storage space left (${code}); nothing of this request was stored, retry later`,
    { retryAfterSeconds: STORAGE_FULL_RETRY_SECONDS, cause: error },
  );
}
