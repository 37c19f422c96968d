/**
 * watchTokens for the bridge: one native TokenWatcher per module while anyone listens (none otherwise, so
 * an idle app does not poll), and after every insert or removal the full token list to every listener.
 * Events of one poll (or of several modules at once) are coalesced into one refresh.
 */
import { setImmediate } from 'node:timers';
import type { TokenInfo } from '../../common/desktop-bridge.js';
import { watchTokens, type TokenWatcher, type TokenWatcherOptions } from '../../native/index.js';
import type { TokenSet } from './token-set.js';

export type TokenListener = (tokens: TokenInfo[]) => void;

export class TokenWatch {
  private readonly listeners = new Set<TokenListener>();
  private watchers: TokenWatcher[] = [];
  private starting: Promise<void> | undefined;
  private refreshing = false;
  private again = false;
  private closed = false;

  constructor(
    private readonly tokens: TokenSet,
    private readonly now: () => Date,
    private readonly options: Pick<TokenWatcherOptions, 'intervalMs' | 'rescan'>,
    private readonly onError: (error: unknown) => void,
  ) {}

  subscribe(listener: TokenListener): () => void {
    if (this.closed) return () => undefined;
    // A listener given twice gets its own entry, so each unsubscribe removes one.
    const entry: TokenListener = (tokens) => listener(tokens);
    this.listeners.add(entry);
    if (this.listeners.size === 1) this.starting = this.start();
    return () => {
      if (!this.listeners.delete(entry) || this.listeners.size > 0) return;
      void this.stopWatchers();
    };
  }

  private async start(): Promise<void> {
    const modules = await this.tokens.modules();
    // Already watching (a quick unsubscribe + subscribe started twice), closed, or nobody left to tell.
    if (this.closed || this.listeners.size === 0 || this.watchers.length > 0) return;
    this.watchers = modules.map((module) => {
      const watcher = watchTokens(module, { ...this.options, emitInitial: false });
      watcher.on('inserted', () => this.changed());
      watcher.on('removed', () => this.changed());
      watcher.on('error', (error) => this.onError(error));
      return watcher;
    });
  }

  private async stopWatchers(): Promise<void> {
    await this.starting;
    if (this.listeners.size > 0 && !this.closed) return; // someone subscribed again meanwhile
    const watchers = this.watchers;
    this.watchers = [];
    await Promise.all(watchers.map((w) => w.stop()));
  }

  private changed(): void {
    if (this.refreshing) {
      this.again = true;
      return;
    }
    this.refreshing = true;
    setImmediate(() => void this.refresh());
  }

  private async refresh(): Promise<void> {
    try {
      do {
        this.again = false;
        const list = await this.tokens.list(this.now());
        if (this.closed) return;
        for (const listener of [...this.listeners]) {
          try {
            listener(list);
          } catch (error) {
            this.onError(error);
          }
        }
      } while (this.again && !this.closed);
    } catch (error) {
      this.onError(error);
    } finally {
      this.refreshing = false;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
    await this.stopWatchers();
  }
}
