/**
 * cli/bulk-progress.ts: a redrawn bar on a terminal, one line per change elsewhere, and a server that is briefly
 * unreachable waited for.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { UnreachableError, type ApiClient, type ApiResponse } from '../../cli/api-client.js';
import { followBatch } from '../../cli/bulk-progress.js';

function state(status: string, sent: number, failed = 0): ApiResponse {
  return {
    status: 200,
    replayed: false,
    json: {
      bulk_send_id: 'b',
      status,
      counts: { total: 4, created: sent + failed, sent, failed, canceled: 0, pending: 4 - sent - failed },
      failures: [],
    },
  };
}

/** Answers GET /bulk-sends/b with the given states in turn (a thrown error stands for an unreachable server). */
function api(answers: (ApiResponse | Error)[]): ApiClient {
  return {
    get: async () => {
      const next = answers.shift();
      if (next === undefined) throw new Error('polled after the end');
      if (next instanceof Error) throw next;
      return next;
    },
    post: async () => {
      throw new Error('not used');
    },
  };
}

function sink(isTTY: boolean): NodeJS.WritableStream & { isTTY: boolean; text: string } {
  const out = {
    isTTY,
    text: '',
    write(chunk: string) {
      out.text += chunk;
      return true;
    },
  };
  return out as unknown as NodeJS.WritableStream & { isTTY: boolean; text: string };
}

describe('bulk send progress', () => {
  test('on a terminal: the bar is redrawn in place with created/sent/failed of the total, then a newline', async () => {
    const stream = sink(true);
    const final = await followBatch(
      api([state('queued', 0), state('running', 2), state('completed_with_errors', 3, 1)]),
      'b',
      { intervalMs: 1, stream },
    );
    assert.equal(final.status, 'completed_with_errors');
    const frames = stream.text.split('\r').filter((f) => f !== '');
    assert.equal(frames.length, 3);
    assert.ok(
      frames[1]!.startsWith(`[${'#'.repeat(15)}${'-'.repeat(15)}]  50%  created 2, sent 2, failed 0 of 4`),
      frames[1],
    );
    assert.equal(frames[2], `[${'#'.repeat(30)}] 100%  created 4, sent 3, failed 1 of 4\u001b[K\n`);
  });

  test('elsewhere: one plain line per change; an unreachable server is retried', async () => {
    const stream = sink(false);
    const down = new UnreachableError('cannot reach http://127.0.0.1:1/backend/api/v1: connect ECONNREFUSED');
    const final = await followBatch(
      api([state('running', 1), state('running', 1), down, state('running', 3), state('completed', 4)]),
      'b',
      { intervalMs: 1, stream },
    );
    assert.equal(final.status, 'completed');
    assert.deepEqual(stream.text.trimEnd().split('\n'), [
      'running: created 1, sent 1, failed 0 of 4',
      'cannot reach http://127.0.0.1:1/backend/api/v1: connect ECONNREFUSED; retrying',
      'running: created 3, sent 3, failed 0 of 4',
      'completed: created 4, sent 4, failed 0 of 4',
    ]);
  });

  test('an HTTP error answer is not retried', async () => {
    const refused: ApiResponse = { status: 404, replayed: false, json: { code: 'bulk_send_not_found' } };
    await assert.rejects(followBatch(api([refused]), 'b', { intervalMs: 1, stream: sink(false) }), /404/);
  });
});
