/**
 * Token insertion / removal by polling C_GetSlotList(true) + C_GetTokenInfo (C_WaitForSlotEvent is not
 * dependable: SoftHSM 2.6 answers CKR_FUNCTION_NOT_SUPPORTED when blocking and CKR_NO_EVENT otherwise).
 *
 *   const watcher = watchTokens(module, { intervalMs: 500 });
 *   watcher.on('inserted', (token) => ...); watcher.on('removed', (token) => ...);
 *   watcher.on('error', (error) => ...);   // optional: poll failures (without a listener they are dropped)
 *   await watcher.ready;                  // first poll done (tokens present at start were reported as
 *                                         // 'inserted' unless emitInitial is false)
 *   await watcher.stop();                 // no timer and no poll left running afterwards
 *
 * A token is identified by manufacturer + model + serial (slot ids may change when a module
 * re-enumerates); a token without a serial by its slot and label. A slot that is listed but whose token
 * info cannot be read counts as empty (SoftHSM keeps a deleted token's slot and fails C_GetTokenInfo).
 * Polls go through the module's queue, so they wait while a signature is in progress.
 */
import { EventEmitter } from 'node:events';
import type { Pkcs11Module, TokenInfo } from './pkcs11-module.js';

export interface TokenWatcherOptions {
  /** Poll interval in ms (default 1000, minimum 10). */
  readonly intervalMs?: number;
  /**
   * 'none' (default): just poll. 'reinitialize': C_Finalize + C_Initialize before each poll, for modules
   * that only discover tokens in C_Initialize (SoftHSM 2.6 does; see Pkcs11Module.reinitialize).
   */
  readonly rescan?: 'none' | 'reinitialize';
  /** Report blank (uninitialised) tokens too (default false: SoftHSM always shows one in a free slot). */
  readonly includeUninitialized?: boolean;
  /** Emit 'inserted' for the tokens present at the first poll (default true). */
  readonly emitInitial?: boolean;
}

export interface TokenWatcherEvents {
  inserted: [token: TokenInfo];
  removed: [token: TokenInfo];
  error: [error: unknown];
}

export function tokenKey(token: TokenInfo): string {
  return token.serial.length > 0
    ? `${token.manufacturer}\u0000${token.model}\u0000${token.serial}`
    : `slot:${token.slotId}\u0000${token.label}`;
}

export class TokenWatcher extends EventEmitter<TokenWatcherEvents> {
  /** Resolves after the first poll (whether it succeeded or not). */
  readonly ready: Promise<void>;
  private readonly known = new Map<string, TokenInfo>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private inFlight: Promise<void> | undefined;
  private stopped = false;
  private first = true;
  private readonly intervalMs: number;

  constructor(
    private readonly module: Pkcs11Module,
    private readonly options: TokenWatcherOptions = {},
  ) {
    super();
    this.intervalMs = Math.max(10, options.intervalMs ?? 1000);
    this.ready = this.pollNow().catch((error: unknown) => this.report(error));
  }

  /** The tokens seen at the last poll. */
  tokens(): TokenInfo[] {
    return [...this.known.values()];
  }

  /**
   * Polls now (also what the timer does); resolves when done, rejects only if an event listener threw.
   * Concurrent calls share one poll.
   */
  pollNow(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.inFlight) return this.inFlight;
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.inFlight = this.poll().finally(() => {
      this.inFlight = undefined;
      this.schedule();
    });
    return this.inFlight;
  }

  /** Stops polling; resolves once a poll in progress has finished. Idempotent. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.inFlight) await this.inFlight;
  }

  private schedule(): void {
    if (this.stopped || this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.pollNow().catch((error: unknown) => this.report(error));
    }, this.intervalMs);
  }

  /** Poll failures and exceptions thrown by listeners go to 'error' listeners, if any. */
  private report(error: unknown): void {
    if (!this.stopped && this.listenerCount('error') > 0) this.emit('error', error);
  }

  private async poll(): Promise<void> {
    let tokens: TokenInfo[];
    try {
      if (this.options.rescan === 'reinitialize') await this.module.reinitialize();
      tokens = await this.module.listTokens();
    } catch (error) {
      this.report(error);
      return;
    }
    if (this.stopped) return;
    const current = new Map<string, TokenInfo>();
    for (const token of tokens) {
      if (!token.initialized && !this.options.includeUninitialized) continue;
      current.set(tokenKey(token), token);
    }
    const silent = this.first && this.options.emitInitial === false;
    this.first = false;
    const removed = [...this.known].filter(([key]) => !current.has(key));
    const inserted = [...current].filter(([key]) => !this.known.has(key));
    this.known.clear();
    for (const [key, token] of current) this.known.set(key, token);
    if (silent) return;
    for (const [, token] of removed) this.emit('removed', token);
    for (const [, token] of inserted) this.emit('inserted', token);
  }
}

export function watchTokens(module: Pkcs11Module, options: TokenWatcherOptions = {}): TokenWatcher {
  return new TokenWatcher(module, options);
}
