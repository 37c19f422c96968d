import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { trackHandlers } from '../../../server/http/in-flight.js';

test('async handlers are counted until they finish; drain waits for them', async () => {
  const app = Fastify();
  const inFlight = trackHandlers(app);
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  app.get('/slow', async () => {
    await gate;
    return { done: true };
  });
  await app.ready();
  const response = app.inject({ method: 'GET', url: '/slow' });
  while (inFlight.count === 0) await new Promise((resolve) => setImmediate(resolve));
  let drained = false;
  const drain = inFlight.drain().then(() => (drained = true));
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(drained, false, 'drain waits for the running handler');
  release();
  assert.deepEqual((await response).json(), { done: true });
  await drain;
  assert.equal(inFlight.count, 0);
  await app.close();
});

test('a callback-style handler (returns nothing, sends later) still answers with its body', async () => {
  const app = Fastify();
  const inFlight = trackHandlers(app);
  app.get('/later', (_request, reply) => {
    setImmediate(() => void reply.type('text/plain').send('x'.repeat(5000)));
  });
  app.get('/sync', () => 'sync value');
  app.get('/throws', () => {
    throw new Error('boom');
  });
  await app.ready();
  const later = await app.inject({ method: 'GET', url: '/later' });
  assert.equal(later.statusCode, 200);
  assert.equal(later.body.length, 5000, 'not ended empty');
  assert.equal((await app.inject({ method: 'GET', url: '/sync' })).body, 'sync value');
  assert.equal((await app.inject({ method: 'GET', url: '/throws' })).statusCode, 500);
  assert.equal(inFlight.count, 0, 'every handler was counted out');
  await app.close();
});
