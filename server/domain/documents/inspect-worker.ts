/** Worker side of pdf-inspector.ts: one task message in, one message out, errors as codes. */
import { parentPort, workerData } from 'node:worker_threads';
import { isMoharError } from '../../../common/errors.js';
import type { PdfLimits } from '../../../pdf/index.js';
import { runPdfTask, type PdfTaskKind } from './pdf-tasks.js';

const limits = (workerData as { limits: Partial<PdfLimits> }).limits;

parentPort!.on('message', (message: { id: number; kind: PdfTaskKind; input: never }) => {
  try {
    parentPort!.postMessage({ id: message.id, ok: true, output: runPdfTask(message.kind, message.input, limits) });
  } catch (error) {
    if (isMoharError(error)) {
      // The items and extra members are plain data: they cross too (e.g. invalid_field_layout's list of fields).
      parentPort!.postMessage({
        id: message.id,
        ok: false,
        code: error.code,
        message: error.message,
        ...(error.errors ? { errors: error.errors } : {}),
        ...(error.extra ? { extra: error.extra } : {}),
      });
    } else if (error instanceof RangeError) {
      // Stack or buffer exhaustion inside the parser means the file is beyond what we accept.
      parentPort!.postMessage({
        id: message.id,
        ok: false,
        code: 'pdf_too_complex',
        message: `the PDF exceeds the processing limits (${error.message})`,
      });
    } else {
      parentPort!.postMessage({
        id: message.id,
        ok: false,
        code: 'invalid_pdf',
        message: `the PDF could not be read: ${(error as Error).message}`,
      });
    }
  }
});

// Ready: the pool starts a task's deadline only now, so module loading never counts against a task.
parentPort!.postMessage({ ready: true });
