/**
 * Child process of the bulk benchmark: while the fan-out runs, GETs one envelope's status at a steady
 * rate (as a dashboard polling its envelopes would) and records each latency, call to last byte. It
 * stops on an `exit` message and answers with the latencies. Its own process, so its fetch work does not
 * share the server's event loop.
 */
if (!process.send) {
  console.error('bench/bulk-status-client.ts is started by bench/bulk.ts (it needs an IPC channel)');
  process.exit(2);
}

type Start = { type: 'start'; url: string; key: string; intervalMs: number };

const latencies: number[] = [];
let errors = 0;
let running = false;

async function poll(message: Start): Promise<void> {
  while (running) {
    const started = performance.now();
    try {
      const response = await fetch(message.url, { headers: { 'x-api-key': message.key } });
      await response.arrayBuffer();
      if (response.status === 200) latencies.push(performance.now() - started);
      else errors++;
    } catch {
      errors++;
    }
    const wait = message.intervalMs - (performance.now() - started);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

process.on('message', (raw) => {
  const message = raw as Start | { type: 'stop' };
  if (message.type === 'start') {
    running = true;
    void poll(message);
  } else {
    running = false;
    process.send!({ type: 'result', latencies, errors }, () => process.exit(0));
  }
});
process.send({ type: 'ready' });
