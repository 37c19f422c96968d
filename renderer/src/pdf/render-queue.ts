/**
 * Pages are drawn one at a time (a 100-page document must not start 100 renders at once), the ones in view
 * first: a page that scrolls into view jumps the queue.
 */
export interface RenderJob {
  readonly key: string;
  run(): Promise<void>;
}

export class RenderQueue {
  private readonly waiting: RenderJob[] = [];
  private running = false;

  /** Queues (or re-queues) a job; `urgent` puts it first. */
  add(job: RenderJob, urgent = false): void {
    this.remove(job.key);
    if (urgent) this.waiting.unshift(job);
    else this.waiting.push(job);
    void this.pump();
  }

  remove(key: string): void {
    const index = this.waiting.findIndex((j) => j.key === key);
    if (index >= 0) this.waiting.splice(index, 1);
  }

  /** Moves a queued job to the front. */
  hurry(key: string): void {
    const index = this.waiting.findIndex((j) => j.key === key);
    if (index > 0) this.waiting.unshift(...this.waiting.splice(index, 1));
  }

  private async pump(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (let job = this.waiting.shift(); job; job = this.waiting.shift()) {
        try {
          await job.run();
        } catch {
          // a cancelled or failed render is the page's business (it shows its own message)
        }
      }
    } finally {
      this.running = false;
    }
  }
}
