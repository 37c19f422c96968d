/**
 * The PDF worker pool: every CPU-bound piece of work on untrusted bytes (intake inspection, the DSC
 * upload check, filling the prepared document, the electronic act's revision with its signature image)
 * runs here, in worker threads with a memory cap (resourceLimits) and a deadline, so a hostile input
 * (deep nesting, decompression bombs, huge page trees, a 25-megapixel PNG) costs one worker at most and
 * the event loop keeps serving. A worker that times out or runs out of memory is terminated and replaced.
 * The queue is bounded: when it is full a task is refused at once (server_busy) instead of piling up.
 * A task's deadline starts when a loaded worker receives it: a worker's start-up (module loading, slow
 * from TypeScript sources under tsx) never counts against the task.
 * The tasks themselves are plain functions in pdf-tasks.ts.
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { MoharError, type ErrorCode, type ErrorItem } from '../../../common/errors.js';
import type { PdfInfo, PdfLimits } from '../../../pdf/index.js';
import type { PdfTaskInput, PdfTaskKind, PdfTaskOutput } from './pdf-tasks.js';

export interface PdfInspector {
  inspect(bytes: Uint8Array): Promise<PdfInfo>;
  /** Runs one task of pdf-tasks.ts in a worker. */
  run<K extends PdfTaskKind>(kind: K, input: PdfTaskInput<K>): Promise<PdfTaskOutput<K>>;
  close(): Promise<void>;
}

export interface InspectorOptions {
  readonly limits?: Partial<PdfLimits>;
  readonly workers?: number;
  readonly timeoutMs?: number;
  readonly memoryMb?: number;
  /** Tasks waiting for a worker beyond the running ones; more are refused with server_busy. Default 64. */
  readonly maxQueue?: number;
}

interface Job {
  readonly id: number;
  readonly kind: PdfTaskKind;
  readonly input: unknown;
  resolve(output: unknown): void;
  reject(error: unknown): void;
}

type WorkerReply =
  | { id: number; ok: true; output: unknown }
  | { id: number; ok: false; code: ErrorCode; message: string; errors?: ErrorItem[]; extra?: Record<string, unknown> };

/** What a timed-out task was doing, for the error message. */
const DOING: Record<PdfTaskKind, string> = {
  inspect: 'reading the PDF',
  fill: 'filling the PDF',
  prepareSend: 'adding the form fields and preparing the certification',
  prepareCertificate: 'laying out the certificate of completion',
  prepareSignature: 'preparing the signed revision (PDF and signature image)',
  checkUpload: 'checking the uploaded PDF',
  judgeRevision: 'checking the new revision',
  verify: 'verifying the signatures of the PDF',
  verifyPublic: 'verifying the signatures and certificate chains of the PDF',
  fieldsNotLocked: 'listing the fields no signature locks yet',
};

/**
 * The build ships inspect-worker.js beside this file. From TypeScript sources (tests, dev) Node 20
 * does not apply the parent's tsx loader to a worker's entry point, so the worker registers tsx
 * itself before importing the .ts entry.
 */
function newWorker(options: WorkerOptions): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./inspect-worker.js', import.meta.url), options);
  const entry = JSON.stringify(new URL('./inspect-worker.ts', import.meta.url).href);
  return new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${entry}); })`, {
    ...options,
    eval: true,
  });
}

/**
 * Copies every byte array in the input into a buffer of its own and lists those for transfer: the caller
 * keeps its bytes, the worker gets exactly the bytes (a Buffer may be a view into a much larger pool, which
 * structured clone would copy whole).
 */
function detachBytes(value: unknown, transfer: ArrayBuffer[], depth = 0): unknown {
  if (value instanceof Uint8Array) {
    const copy = new Uint8Array(value);
    transfer.push(copy.buffer);
    return copy;
  }
  if (depth > 4 || value === null || typeof value !== 'object' || value instanceof Date) return value;
  if (Array.isArray(value)) return value.map((v) => detachBytes(v, transfer, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, detachBytes(v, transfer, depth + 1)]));
}

class Slot {
  worker: Worker | undefined;
  /** The worker has loaded its modules (it says so once). */
  ready = false;
  job: Job | undefined;
  timer: NodeJS.Timeout | undefined;
  /** The job was posted to the worker (its deadline runs). */
  sent = false;
}

/** A worker that has not loaded its modules by then is broken: its task fails. */
const BOOT_TIMEOUT_MS = 60_000;

export function createPdfInspector(options: InspectorOptions = {}): PdfInspector {
  const timeoutMs = options.timeoutMs ?? 20_000;
  const memoryMb = options.memoryMb ?? 768;
  const maxQueue = options.maxQueue ?? 64;
  const slots = Array.from({ length: Math.max(1, options.workers ?? 2) }, () => new Slot());
  const queue: Job[] = [];
  let nextId = 1;
  let closed = false;

  function spawn(slot: Slot): Worker {
    const worker = newWorker({
      workerData: { limits: options.limits ?? {} },
      resourceLimits: { maxOldGenerationSizeMb: memoryMb, maxYoungGenerationSizeMb: 64, stackSizeMb: 8 },
    });
    worker.unref();
    slot.ready = false;
    const boot = setTimeout(() => {
      if (slot.worker === worker && !slot.ready) {
        slot.worker = undefined;
        void worker.terminate();
        const job = slot.job;
        finish(slot);
        job?.reject(new Error(`a PDF worker did not start within ${BOOT_TIMEOUT_MS / 1000} s`));
      }
    }, BOOT_TIMEOUT_MS);
    boot.unref();
    worker.on('message', (reply: WorkerReply | { ready: true }) => {
      if ('ready' in reply) {
        clearTimeout(boot);
        if (slot.worker !== worker) return;
        slot.ready = true;
        if (slot.job && !slot.sent) send(slot);
        return;
      }
      const job = slot.job;
      if (!job || job.id !== reply.id) return;
      finish(slot);
      if (reply.ok) job.resolve(reply.output);
      else {
        job.reject(
          new MoharError(reply.code, reply.message, {
            ...(reply.errors ? { errors: reply.errors } : {}),
            ...(reply.extra ? { extra: reply.extra } : {}),
          }),
        );
      }
    });
    const fail = (why: string) => {
      const job = slot.job;
      slot.worker = undefined;
      finish(slot);
      job?.reject(
        new MoharError(
          'pdf_too_complex',
          `${job ? DOING[job.kind] : 'the PDF work'} could not be done within the limits (${why})`,
        ),
      );
    };
    worker.on('error', (error: Error & { code?: string }) =>
      fail(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? `more than ${memoryMb} MB of memory` : error.message),
    );
    worker.on('exit', () => {
      if (slot.worker === worker) fail('worker stopped');
    });
    return worker;
  }

  function finish(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = undefined;
    slot.job = undefined;
    slot.sent = false;
    pump();
  }

  /** Starts the job's deadline and hands it to the (ready) worker. */
  function send(slot: Slot): void {
    const job = slot.job!;
    slot.sent = true;
    slot.timer = setTimeout(() => {
      const worker = slot.worker;
      slot.worker = undefined;
      finish(slot);
      job.reject(
        new MoharError(
          'pdf_too_complex',
          `${DOING[job.kind]} took longer than ${timeoutMs / 1000} s; the file exceeds the processing limits`,
        ),
      );
      void worker?.terminate();
    }, timeoutMs);
    const transfer: ArrayBuffer[] = [];
    const input = detachBytes(job.input, transfer);
    slot.worker!.postMessage({ id: job.id, kind: job.kind, input }, transfer);
  }

  function pump(): void {
    for (const slot of slots) {
      if (slot.job || queue.length === 0 || closed) continue;
      const job = queue.shift()!;
      slot.job = job;
      slot.worker ??= spawn(slot);
      slot.worker.ref();
      if (slot.ready) send(slot);
    }
    for (const slot of slots) if (!slot.job) slot.worker?.unref();
  }

  function run<K extends PdfTaskKind>(kind: K, input: PdfTaskInput<K>): Promise<PdfTaskOutput<K>> {
    if (closed) return Promise.reject(new Error('PDF worker pool closed'));
    if (queue.length >= maxQueue) {
      return Promise.reject(
        new MoharError(
          'server_busy',
          `the server is processing too many PDF files right now (${maxQueue} waiting); try again shortly`,
          { retryAfterSeconds: 5 },
        ),
      );
    }
    return new Promise<PdfTaskOutput<K>>((resolve, reject) => {
      queue.push({ id: nextId++, kind, input, resolve: resolve as (output: unknown) => void, reject });
      pump();
    });
  }

  return {
    run,
    inspect: (bytes) => run('inspect', { bytes }),
    async close() {
      closed = true;
      for (const job of queue.splice(0)) job.reject(new Error('PDF worker pool closed'));
      await Promise.all(
        slots.map(async (slot) => {
          const worker = slot.worker;
          slot.worker = undefined;
          if (slot.timer) clearTimeout(slot.timer);
          await worker?.terminate();
        }),
      );
    },
  };
}
