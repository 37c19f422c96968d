/**
 * POST /bulk-sends/validate: the checks of POST /bulk-sends (source state, every row) without queueing
 * anything, so a console can show every row's problems before the user sends. Same answers: 404, 409
 * bulk_source_state, 422 invalid_rows; nothing is written, so no Idempotency-Key is needed.
 */
import type { Context } from '../context.js';
import type { BulkSendInput } from './create-bulk-send.js';
import { loadSource } from './source.js';
import { validateRows } from './validate-rows.js';

export async function validateBulkSend(
  ctx: Context,
  accountId: string,
  input: BulkSendInput,
): Promise<{ valid: true; total_rows: number }> {
  const source = await loadSource(ctx, accountId, input);
  await validateRows(ctx, accountId, source, input.rows);
  return { valid: true, total_rows: input.rows.length };
}
