/**
 * Wrappers that count what the Context's ports do, for the metrics: blob store errors and the PDF worker
 * pool's use (tasks in it, their durations). Installed only when metrics are on (app.ts), so a server
 * without metrics runs the plain ports.
 */
import type { PdfInspector } from '../domain/documents/pdf-inspector.js';
import type { PdfTaskKind } from '../domain/documents/pdf-tasks.js';
import type { BlobStore } from '../storage/blobs.js';
import type { Metrics } from './registry.js';

export function countedBlobStore(store: BlobStore, metrics: Metrics): BlobStore {
  const counted = async <T>(operation: string, call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      metrics.blobErrors.inc({ operation });
      throw error;
    }
  };
  return {
    put: (bytes) => counted('put', () => store.put(bytes)),
    get: (sha256) => counted('get', () => store.get(sha256)),
    has: (sha256) => counted('has', () => store.has(sha256)),
    storedBefore: (cutoff) => store.storedBefore(cutoff),
    deleteIfStoredBefore: (sha256, cutoff) => counted('delete', () => store.deleteIfStoredBefore(sha256, cutoff)),
    probe: () => counted('probe', () => store.probe()),
  };
}

export function timedPdfInspector(pool: PdfInspector, metrics: Metrics): PdfInspector {
  const timed = async <T>(task: PdfTaskKind, call: () => Promise<T>): Promise<T> => {
    metrics.pdfTasksInPool.inc();
    const end = metrics.pdfTaskDuration.startTimer({ task });
    try {
      const output = await call();
      end({ outcome: 'ok' });
      return output;
    } catch (error) {
      end({ outcome: 'error' });
      throw error;
    } finally {
      metrics.pdfTasksInPool.dec();
    }
  };
  return {
    inspect: (bytes) => timed('inspect', () => pool.inspect(bytes)),
    run: (kind, input) => timed(kind, () => pool.run(kind, input)),
    // The pool belongs to the runtime, which closes it.
    close: () => pool.close(),
  };
}
