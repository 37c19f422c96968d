/**
 * Child process of the workflow benchmark (started by startLoadClient() in bench/workflow-load.ts):
 * waits for `run` messages, drives the envelopes over HTTP, answers with the timings.
 */
import { makePdf } from '../test/support/pdf-fixtures.js';
import { runLoad, type LoadRequest } from './workflow-load.js';

type ParentMessage = { type: 'run'; request: LoadRequest } | { type: 'exit' };

const send = (message: unknown): void => {
  process.send!(message);
};

if (!process.send) {
  console.error('bench/workflow-client.ts is started by bench/workflow.ts (it needs an IPC channel)');
  process.exit(2);
}

// The document every envelope gets: one Letter page with a line of text.
const pdf = makePdf({ pages: [{ text: 'Mohar workflow benchmark: one page, one signer.' }] });

process.on('message', (raw) => {
  const message = raw as ParentMessage;
  if (message.type === 'exit') {
    process.exit(0);
  }
  runLoad(message.request, pdf).then(
    (result) => send({ type: 'result', result }),
    (error: unknown) =>
      send({ type: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
  );
});
send({ type: 'ready' });
