/**
 * Follows a bulk send until it ends (GET /bulk-sends/{id}): a redrawn progress bar on a terminal, one
 * plain line per change otherwise (logs, CI). A server that is briefly unreachable (a restart) is waited
 * for; the batch itself is durable and goes on without us.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { UnreachableError, type ApiClient } from './api-client.js';

export interface BatchState {
  bulk_send_id: string;
  status: string;
  counts: { total: number; created: number; sent: number; failed: number; canceled: number; pending: number };
  failures: { row_index: number; external_id: string | null; code: string; message: string }[];
}

const DONE = new Set(['completed', 'completed_with_errors', 'canceled']);
/** How long the server may stay unreachable before we give up following (the batch goes on regardless). */
const UNREACHABLE_MS = 120_000;
const BAR = 30;

function describe(b: BatchState): string {
  const c = b.counts;
  return `created ${c.created}, sent ${c.sent}, failed ${c.failed} of ${c.total}`;
}

function bar(b: BatchState): string {
  const c = b.counts;
  const done = c.total === 0 ? 1 : (c.sent + c.failed + c.canceled) / c.total;
  const filled = Math.round(done * BAR);
  return `\r[${'#'.repeat(filled)}${'-'.repeat(BAR - filled)}] ${String(Math.floor(done * 100)).padStart(3)}%  ${describe(b)}\x1b[K`;
}

export async function followBatch(
  api: ApiClient,
  id: string,
  options: { intervalMs: number; stream: NodeJS.WritableStream & { isTTY?: boolean } },
): Promise<BatchState> {
  const tty = options.stream.isTTY === true;
  let last = '';
  let unreachableSince: number | null = null;
  for (;;) {
    let state: BatchState | undefined;
    try {
      const response = await api.get(`/bulk-sends/${id}`);
      if (response.status !== 200) {
        throw new Error(`GET /bulk-sends/${id}: ${response.status} ${JSON.stringify(response.json)}`);
      }
      state = response.json as unknown as BatchState;
      unreachableSince = null;
    } catch (error) {
      if (!(error instanceof UnreachableError)) throw error;
      unreachableSince ??= Date.now();
      if (Date.now() - unreachableSince > UNREACHABLE_MS) {
        throw new Error(
          `the server has been unreachable for ${UNREACHABLE_MS / 1000} s; the batch ${id} goes on without this command (GET /bulk-sends/${id})`,
        );
      }
      if (!tty) options.stream.write(`${error.message}; retrying\n`);
    }
    if (state) {
      const line = `${state.status}: ${describe(state)}`;
      if (tty) options.stream.write(bar(state));
      else if (line !== last) options.stream.write(`${line}\n`);
      last = line;
      if (DONE.has(state.status)) {
        if (tty) options.stream.write('\n');
        return state;
      }
    }
    await sleep(options.intervalMs);
  }
}
