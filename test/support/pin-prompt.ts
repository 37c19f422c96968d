/** A scripted PinPrompt for the desktop signer tests: records every request and answers from a queue. */
import type { PinPrompt, PinRequest } from '../../main/signer/index.js';

export type PinAnswer = string | null | ((request: PinRequest) => Promise<string | null>);

export interface ScriptedPrompt extends PinPrompt {
  readonly requests: PinRequest[];
  /** Answers for the next askPin calls, in order; asking with none queued fails the test. */
  answer(...answers: PinAnswer[]): void;
}

export function scriptedPrompt(): ScriptedPrompt {
  const queue: PinAnswer[] = [];
  const requests: PinRequest[] = [];
  return {
    requests,
    answer(...answers) {
      queue.push(...answers);
    },
    async askPin(request) {
      requests.push(request);
      if (queue.length === 0) throw new Error('the PIN was asked for, and the test did not expect it');
      const next = queue.shift()!;
      return typeof next === 'function' ? next(request) : next;
    },
  };
}

/** A promise with its resolve handle (a PIN window the test answers later). */
export function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
