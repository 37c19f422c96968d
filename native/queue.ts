/**
 * A tiny promise queue: tasks run one after another, in the order they were added, whatever the previous
 * task's outcome. One queue per loaded PKCS#11 library serialises all token work (one operation per
 * session, login state per application).
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private pending = 0;

  /** Runs `task` after every task added before it has settled; resolves/rejects with its result. */
  run<T>(task: () => Promise<T> | T): Promise<T> {
    this.pending += 1;
    const result = this.tail.then(
      () => task(),
      () => task(),
    );
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    this.tail = settled;
    void settled.then(() => {
      this.pending -= 1;
    });
    return result;
  }

  /** Tasks added and not yet settled (running or waiting). */
  get size(): number {
    return this.pending;
  }
}
