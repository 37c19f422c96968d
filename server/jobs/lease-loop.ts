/**
 * The polling loop shared by the job runner (runner.ts) and the webhook worker (webhooks/worker.ts): both
 * claim due rows with a lease, run them with bounded concurrency, and look again after a poll interval,
 * at once when poked (a commit enqueued work, a run finished) or when the last claim filled every free
 * slot (more may be due). Only one claiming round runs at a time; a poke during one is remembered and
 * starts the next round as soon as it ends. What a round claims and how it runs it stays with the owner.
 */

export interface LeaseLoopOptions {
  /** Look for due work this often when nothing pokes the loop. */
  readonly pollIntervalMs: number;
  /**
   * One claiming round: claims up to the free slots and launches what it claimed; true when it filled
   * every free slot. Errors are the round's own to log (the loop goes on at the next poll either way).
   */
  readonly round: () => Promise<boolean>;
  /** A slot is free now (checked after a full round, before going again at once). */
  readonly hasRoom: () => boolean;
}

export class LeaseLoop {
  private started = false;
  private stopping = false;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private pokedWhileTicking = false;

  constructor(private readonly options: LeaseLoopOptions) {}

  /** Started and not stopping: claiming goes on. */
  get claiming(): boolean {
    return this.started && !this.stopping;
  }

  /** Started (until stop has finished, also while stopping). */
  get isStarted(): boolean {
    return this.started;
  }

  /** Starts polling; false when it was started already. */
  start(): boolean {
    if (this.started) return false;
    this.started = true;
    this.schedule(0);
    return true;
  }

  /** Looks for due work now; harmless when idle or stopped. */
  poke(): void {
    if (!this.claiming) return;
    if (this.ticking) {
      this.pokedWhileTicking = true;
      return;
    }
    this.schedule(0);
  }

  /** Stops claiming (no round starts any more); false when not started or stopping already. */
  beginStop(): boolean {
    if (!this.claiming) return false;
    this.stopping = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    return true;
  }

  /** Settles when the round in progress, if any, has ended. */
  async roundEnded(): Promise<void> {
    await this.ticking;
  }

  /** The owner has waited for its runs: the loop may be started again. */
  finishStop(): void {
    this.started = false;
    this.stopping = false;
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), ms);
  }

  private async tick(): Promise<void> {
    this.timer = undefined;
    if (!this.claiming) return;
    let full = false;
    this.ticking = (async () => {
      full = await this.options.round();
    })();
    await this.ticking;
    this.ticking = undefined;
    if (!this.claiming) return;
    // More may be due: a full batch, or a poke that arrived during the claim.
    const again = this.pokedWhileTicking || (full && this.options.hasRoom());
    this.pokedWhileTicking = false;
    this.schedule(again ? 0 : this.options.pollIntervalMs);
  }
}
