/** A webhook receiver on loopback for tests: records every request (raw body and headers) and answers as told. */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

export interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly rawBody: Buffer;
  readonly path: string;
  /** Answer given. */
  readonly status: number;
  readonly at: number;
}

export interface TestReceiver {
  readonly url: string;
  readonly port: number;
  readonly received: Received[];
  /** TCP connections accepted (a refused delivery must not even connect). */
  readonly connections: number;
  /** Decides each answer (default 200); the argument is the 0-based index of the request. */
  respond: (
    index: number,
    request: { headers: IncomingHttpHeaders; rawBody: Buffer; path: string },
  ) => number | { status: number; headers?: Record<string, string>; body?: string; delayMs?: number };
  /** Resolves once `count` requests have come in (rejects after timeoutMs). */
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(host = '127.0.0.1'): Promise<TestReceiver> {
  const received: Received[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  let requests = 0;
  const receiver = {
    url: '',
    port: 0,
    connections: 0,
    received,
    respond: () => 200,
    waitFor(count: number, timeoutMs = 20_000) {
      if (received.length >= count) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`the receiver got ${received.length} of ${count} requests within ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  } as TestReceiver & { connections: number };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      const rawBody = Buffer.concat(chunks);
      const path = request.url ?? '/';
      const index = requests++;
      const answer = receiver.respond(index, { headers: request.headers, rawBody, path });
      const { status, headers, body, delayMs } =
        typeof answer === 'number'
          ? { status: answer, headers: undefined, body: undefined, delayMs: undefined }
          : answer;
      const send = () => {
        received.push({ headers: request.headers, rawBody, path, status, at: Date.now() });
        response.writeHead(status, headers ?? {}).end(body ?? '');
        for (const waiter of waiters.filter((w) => received.length >= w.count)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      };
      if (delayMs) setTimeout(send, delayMs);
      else send();
    });
  });
  server.on('connection', () => receiver.connections++);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as { port: number }).port;
  return Object.assign(receiver, { url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/hooks`, port });
}
