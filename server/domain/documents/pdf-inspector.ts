/**
 * Runs pdf/inspectPdf in worker threads with a memory cap and a deadline, so a hostile PDF
 * (deep nesting, decompression bombs, huge page trees) costs one worker at most and the event
 * loop keeps serving other requests. A worker that times out or runs out of memory is replaced.
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { MoharError } from '../../../common/errors.js';
import type { PdfInfo, PdfLimits } from '../../../pdf/index.js';

export interface PdfInspector {
  inspect(bytes: Uint8Array): Promise<PdfInfo>;
  close(): Promise<void>;
}

export interface InspectorOptions {
  readonly limits?: Partial<PdfLimits>;
  readonly workers?: number;
  readonly timeoutMs?: number;
  readonly memoryMb?: number;
}

interface Job {
  readonly id: number;
  readonly bytes: Uint8Array;
  resolve(info: PdfInfo): void;
  reject(error: unknown): void;
}

type WorkerReply = { id: number; ok: true; info: PdfInfo } | { id: number; ok: false; code: string; message: string };

/**
 * The build ships inspect-worker.js beside this file. From TypeScript sources (tests, dev) Node 20
 * does not apply the parent's tsx loader to a worker's entry point, so the worker registers tsx
 * itself before importing the .ts entry.
 */
function newWorker(options: WorkerOptions): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./inspect-worker.js', import.meta.url), options);
  const entry = JSON.stringify(new URL('./inspect-worker.ts', import.meta.url).href);
  return new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${entry}); })`, { ...options, eval: true });
}

class Slot {
  worker: Worker | undefined;
  job: Job | undefined;
  timer: NodeJS.Timeout | undefined;
}

export function createPdfInspector(options: InspectorOptions = {}): PdfInspector {
  const timeoutMs = options.timeoutMs ?? 20_000;
  const memoryMb = options.memoryMb ?? 768;
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
    worker.on('message', (reply: WorkerReply) => {
      const job = slot.job;
      if (!job || job.id !== reply.id) return;
      finish(slot);
      if (reply.ok) job.resolve(reply.info);
      else job.reject(new MoharError(reply.code, reply.message));
    });
    const fail = (why: string) => {
      const job = slot.job;
      slot.worker = undefined;
      finish(slot);
      job?.reject(new MoharError('pdf_too_complex', `the PDF could not be processed within the limits (${why})`));
    };
    worker.on('error', (error: Error & { code?: string }) => fail(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'memory' : error.message));
    worker.on('exit', () => {
      if (slot.worker === worker) fail('worker stopped');
    });
    return worker;
  }

  function finish(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = undefined;
    slot.job = undefined;
    pump();
  }

  function pump(): void {
    for (const slot of slots) {
      if (slot.job || queue.length === 0 || closed) continue;
      const job = queue.shift()!;
      slot.job = job;
      slot.worker ??= spawn(slot);
      slot.worker.ref();
      slot.timer = setTimeout(() => {
        const worker = slot.worker;
        slot.worker = undefined;
        finish(slot);
        job.reject(new MoharError('pdf_too_complex', `the PDF took longer than ${timeoutMs / 1000} s to read`));
        void worker?.terminate();
      }, timeoutMs);
      // Copy into a transferable buffer: the caller keeps its bytes, the worker gets its own.
      const copy = new Uint8Array(job.bytes);
      slot.worker.postMessage({ id: job.id, bytes: copy }, [copy.buffer]);
    }
    for (const slot of slots) if (!slot.job) slot.worker?.unref();
  }

  return {
    inspect(bytes) {
      if (closed) return Promise.reject(new Error('PDF inspector closed'));
      return new Promise<PdfInfo>((resolve, reject) => {
        queue.push({ id: nextId++, bytes, resolve, reject });
        pump();
      });
    },
    async close() {
      closed = true;
      for (const job of queue.splice(0)) job.reject(new Error('PDF inspector closed'));
      await Promise.all(slots.map(async (slot) => {
        const worker = slot.worker;
        slot.worker = undefined;
        if (slot.timer) clearTimeout(slot.timer);
        await worker?.terminate();
      }));
    },
  };
}
