/** The example receiver runs as shipped: it accepts signed deliveries, acknowledges duplicates, refuses the rest. */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { signatureHeader } from '../../server/webhooks/verify.js';

const root = new URL('../../', import.meta.url).pathname;
const SECRET = 'whsec_example_receiver_test';

describe('examples/webhook-receiver.ts', () => {
  let child: ChildProcess;
  let url = '';
  let output = '';
  before(async () => {
    child = spawn(process.execPath, ['--import', 'tsx', 'examples/webhook-receiver.ts'], {
      cwd: root,
      env: { PATH: process.env.PATH, PORT: '0', MOHAR_WEBHOOK_SECRETS: `whsec_new_one,${SECRET}` },
    });
    url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the receiver did not start: ${output}`)), 30_000);
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const match = /listening on (http:\/\/\S+)/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    });
  });
  after(() => child?.kill());

  function post(options: { secret?: string; timestamp?: number; id?: string } = {}) {
    const id = options.id ?? randomUUID();
    const body = JSON.stringify({
      id,
      type: 'envelope.completed',
      created_at: new Date().toISOString(),
      account_id: 'a',
      sequence: 4,
      data: {
        envelope: { id: 'env-1' },
        documents: [{ document_id: 'd', sha256: 'ab'.repeat(32), download_url: 'https://mohar.example/dl' }],
      },
    });
    const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
    return fetch(url, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'x-service-timestamp': String(timestamp),
        'x-service-event-id': id,
        'x-service-signature': signatureHeader([options.secret ?? SECRET], timestamp, body),
      },
    });
  }

  test('a signed delivery is accepted (with the second of two configured secrets) and processed', async () => {
    const id = randomUUID();
    assert.equal((await post({ id })).status, 204);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.match(output, /envelope env-1 completed: download https:\/\/mohar\.example\/dl/);
    assert.equal((await post({ id })).status, 200, 'a duplicate is acknowledged');
    assert.equal(await (await post({ id })).text(), 'duplicate');
  });

  test('a wrong secret or a stale timestamp is refused', async () => {
    assert.equal((await post({ secret: 'whsec_someone_else' })).status, 401);
    assert.equal((await post({ timestamp: Math.floor(Date.now() / 1000) - 3600 })).status, 401);
    assert.match(output, /refused a delivery: stale_timestamp/);
  });
});
