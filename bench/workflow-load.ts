/**
 * The load side of the workflow benchmark (bench/workflow.ts): one-signer electronic envelopes driven
 * end to end over HTTP with plain `fetch`, `concurrency` envelopes at a time. It runs in a child
 * process of its own (bench/workflow-client.ts), so the client's JSON, multipart and fetch work does not
 * share the server's event loop; `startLoadClient()` is the parent's handle on that process.
 *
 * One envelope = create (one signer) → upload the PDF (multipart) → PUT one Signature field → send →
 * create a signing session → POST the sign act, which must answer `envelope_status: 'completed'`.
 * Every request is timed from the call to the last byte of the response body.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const STEPS = ['create', 'upload', 'fields', 'send', 'session', 'sign'] as const;
export type Step = (typeof STEPS)[number];

export interface LoadRequest {
  /** e.g. http://127.0.0.1:41234/backend/api/v1 */
  readonly api: string;
  readonly key: string;
  readonly count: number;
  readonly concurrency: number;
  /** Names the envelopes (warm-up or measured). */
  readonly label: string;
}

export interface EnvelopeFailure {
  readonly index: number;
  /** `client`: the client itself broke (a bug in the benchmark, not an HTTP failure). */
  readonly step: Step | 'client';
  readonly status: number;
  readonly detail: string;
}

export interface LoadResult {
  readonly label: string;
  readonly count: number;
  readonly concurrency: number;
  readonly completed: number;
  readonly failures: EnvelopeFailure[];
  /** From the first request to the last response, in the client. */
  readonly wallMs: number;
  /** Per step, the latency of every successful request (ms), in completion order. */
  readonly latencies: Record<Step, number[]>;
  /** How many sign acts were in flight when each one started (itself included). */
  readonly signConcurrency: number[];
  /** CPU the client process spent (user + system) during the run, ms. */
  readonly clientCpuMs: number;
}

class StepError extends Error {
  constructor(
    readonly step: Step,
    readonly status: number,
    readonly detail: string,
  ) {
    super(`${step}: ${status} ${detail}`);
  }
}

interface Timed<T> {
  readonly status: number;
  readonly body: T;
  readonly ms: number;
}

async function call<T>(step: Step, url: string, init: RequestInit, expected: number): Promise<Timed<T>> {
  const started = performance.now();
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, init);
    text = await response.text();
  } catch (error) {
    throw new StepError(
      step,
      0,
      error instanceof Error
        ? `${error.message}${error.cause instanceof Error ? ` (${error.cause.message})` : ''}`
        : String(error),
    );
  }
  const ms = performance.now() - started;
  if (response.status !== expected) throw new StepError(step, response.status, text.slice(0, 300));
  try {
    return { status: response.status, body: JSON.parse(text) as T, ms };
  } catch {
    throw new StepError(step, response.status, `not JSON: ${text.slice(0, 300)}`);
  }
}

/** Runs `request.count` envelopes, `request.concurrency` at a time. `pdf` is the 1-page document to upload. */
export async function runLoad(request: LoadRequest, pdf: Uint8Array): Promise<LoadResult> {
  const { api, key } = request;
  const auth = { 'x-api-key': key };
  const json = { ...auth, 'content-type': 'application/json' };
  const latencies = Object.fromEntries(STEPS.map((s) => [s, [] as number[]])) as Record<Step, number[]>;
  const signConcurrency: number[] = [];
  const failures: EnvelopeFailure[] = [];
  const blob = new Blob([pdf], { type: 'application/pdf' });
  let signing = 0;
  let completed = 0;

  async function envelope(index: number): Promise<void> {
    const steps: [Step, number][] = [];
    const record = <T>(step: Step, timed: Timed<T>): T => {
      steps.push([step, timed.ms]);
      return timed.body;
    };
    const created = record(
      'create',
      await call<{ id: string; recipients: { recipient_id: string }[] }>(
        'create',
        `${api}/envelopes`,
        {
          method: 'POST',
          headers: json,
          body: JSON.stringify({
            title: `Bench ${request.label} ${index}`,
            message: 'Please sign',
            recipients: [{ name: `Signer ${index}`, email: `signer-${request.label}-${index}@example.com` }],
          }),
        },
        201,
      ),
    );
    const envelopeId = created.id;
    const recipientId = created.recipients[0]!.recipient_id;
    const form = new FormData();
    form.append('file', blob, 'agreement.pdf');
    const document = record(
      'upload',
      await call<{ document_id: string }>(
        'upload',
        `${api}/envelopes/${envelopeId}/documents`,
        { method: 'POST', headers: auth, body: form },
        201,
      ),
    );
    record(
      'fields',
      await call(
        'fields',
        `${api}/envelopes/${envelopeId}/documents/${document.document_id}/fields`,
        {
          method: 'PUT',
          headers: json,
          body: JSON.stringify({
            fields: [
              { recipient_id: recipientId, field_type: 1, page_number: 1, x: 40, y: 40, width: 180, height: 50 },
            ],
          }),
        },
        200,
      ),
    );
    record('send', await call('send', `${api}/envelopes/${envelopeId}/send`, { method: 'POST', headers: auth }, 200));
    const session = record(
      'session',
      await call<{ signing_url: string }>(
        'session',
        `${api}/envelopes/${envelopeId}/signing-sessions`,
        {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ recipient_id: recipientId, mode: 'redirect' }),
        },
        201,
      ),
    );
    const token = session.signing_url.split('/sign/')[1];
    if (!token) throw new StepError('session', 201, `no token in signing_url ${session.signing_url}`);
    signing++;
    signConcurrency.push(signing);
    let act: Timed<{ envelope_status: string; recipient_status: string }>;
    try {
      act = await call(
        'sign',
        `${api}/signing/${token}`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'mohar-bench/1.0' },
          body: JSON.stringify({
            action: 'sign',
            consent: true,
            signature: { kind: 'typed', text: `Signer ${index}` },
          }),
        },
        200,
      );
    } finally {
      signing--;
    }
    record('sign', act);
    if (act.body.envelope_status !== 'completed' || act.body.recipient_status !== 'signed') {
      throw new StepError(
        'sign',
        act.status,
        `answered ${JSON.stringify(act.body)}, expected recipient_status signed and envelope_status completed`,
      );
    }
    // Only whole envelopes count: their steps enter the statistics together.
    for (const [step, ms] of steps) latencies[step].push(ms);
    completed++;
  }

  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(request.concurrency, request.count) }, async () => {
      while (next < request.count) {
        const index = next++;
        try {
          await envelope(index);
        } catch (error) {
          failures.push(
            error instanceof StepError
              ? { index, step: error.step, status: error.status, detail: error.detail }
              : {
                  index,
                  step: 'client',
                  status: 0,
                  detail: error instanceof Error ? (error.stack ?? error.message) : String(error),
                },
          );
        }
      }
    }),
  );
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  return {
    label: request.label,
    count: request.count,
    concurrency: request.concurrency,
    completed,
    failures,
    wallMs,
    latencies,
    signConcurrency,
    clientCpuMs: (cpu.user + cpu.system) / 1000,
  };
}

export interface LoadClient {
  readonly pid: number;
  run(request: LoadRequest): Promise<LoadResult>;
  close(): Promise<void>;
}

type ClientMessage = { type: 'ready' } | { type: 'result'; result: LoadResult } | { type: 'error'; message: string };

/** Starts bench/workflow-client.ts in a child process (node --import tsx) and waits until it is ready. */
export async function startLoadClient(): Promise<LoadClient> {
  const child: ChildProcess = fork(fileURLToPath(new URL('./workflow-client.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'advanced',
  });
  let pending: { resolve: (r: LoadResult) => void; reject: (e: Error) => void } | undefined;
  let ready: () => void = () => undefined;
  let failed: (e: Error) => void = () => undefined;
  const readyPromise = new Promise<void>((resolve, reject) => {
    ready = resolve;
    failed = reject;
  });
  child.on('message', (raw) => {
    const message = raw as ClientMessage;
    if (message.type === 'ready') ready();
    else if (message.type === 'result') pending?.resolve(message.result);
    else pending?.reject(new Error(`load client: ${message.message}`));
    if (message.type !== 'ready') pending = undefined;
  });
  child.on('exit', (code) => {
    const error = new Error(`the load client exited (code ${code})`);
    failed(error);
    pending?.reject(error);
    pending = undefined;
  });
  await readyPromise;
  return {
    pid: child.pid!,
    run(request) {
      if (pending) return Promise.reject(new Error('the load client is busy'));
      return new Promise<LoadResult>((resolve, reject) => {
        pending = { resolve, reject };
        child.send({ type: 'run', request });
      });
    },
    close() {
      if (child.exitCode !== null) return Promise.resolve();
      return new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.send({ type: 'exit' });
      });
    },
  };
}
