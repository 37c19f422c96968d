/**
 * The benchmark's webhook receiver, in its own process (a receiver lives elsewhere; here it must not share
 * the worker's event loop). It checks every signature, notes when each event id arrived (wall-clock ms,
 * sub-millisecond), answers 204, and talks to bench/webhooks.ts over IPC:
 *   → {type:'ready', port}      ← {type:'secret', secret}   ← {type:'expect', count}
 *   → {type:'reached', count}   ← {type:'report'}          → {type:'report', arrivals, invalid, duplicates}
 */
import { createServer } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { webhookSignature } from '../server/webhooks/verify.js';

const now = (): number => performance.timeOrigin + performance.now();
let secret = '';
let expected = Infinity;
let invalid = 0;
let duplicates = 0;
const arrivals = new Map<string, number>();

function valid(headers: Record<string, string | string[] | undefined>, body: Buffer): boolean {
  const timestamp = String(headers['x-service-timestamp']);
  const want = Buffer.from(webhookSignature(secret, timestamp, body), 'hex');
  return String(headers['x-service-signature'])
    .split(',')
    .some((candidate) => {
      const hex = candidate.trim().replace(/^sha256=/, '');
      return hex.length === 64 && timingSafeEqual(Buffer.from(hex, 'hex'), want);
    });
}

const server = createServer({ keepAliveTimeout: 30_000 }, (request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (c: Buffer) => chunks.push(c));
  request.on('end', () => {
    const at = now();
    const id = String(request.headers['x-service-event-id']);
    if (!valid(request.headers, Buffer.concat(chunks))) invalid++;
    if (arrivals.has(id)) duplicates++;
    else arrivals.set(id, at);
    response.writeHead(204).end();
    if (arrivals.size === expected) process.send!({ type: 'reached', count: arrivals.size });
  });
});

process.on('message', (message: { type: string; secret?: string; count?: number }) => {
  if (message.type === 'secret') secret = message.secret!;
  if (message.type === 'expect') {
    expected = message.count!;
    if (arrivals.size >= expected) process.send!({ type: 'reached', count: arrivals.size });
  }
  if (message.type === 'report') {
    process.send!({ type: 'report', arrivals: [...arrivals], invalid, duplicates });
    arrivals.clear();
    invalid = 0;
    duplicates = 0;
  }
  if (message.type === 'stop') server.close(() => process.exit(0));
});

server.listen(0, '127.0.0.1', () => {
  process.send!({ type: 'ready', port: (server.address() as { port: number }).port });
});
