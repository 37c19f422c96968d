/**
 * The desktop signer service behind window.moharDesktop (common/desktop-bridge.ts): Electron-free, so the
 * Electron shell wires it through contextBridge and tests (and the Playwright end-to-end test, through
 * exposeBinding) use it as is.
 */
import {
  DESKTOP_BRIDGE_VERSION,
  type BridgeResult,
  type MoharDesktopBridge,
  type SignPreparedResult,
  type TokenInfo,
} from '../../common/desktop-bridge.js';
import type { ModuleLoadFailure } from '../../native/index.js';
import type { HttpTransport } from '../../pdf/index.js';
import { fetchHttp, type BatchHttp } from './batch-fetch.js';
import { SigningBatch } from './batch.js';
import { failed, ok } from './outcome.js';
import type { PinPrompt } from './pin-prompt.js';
import { signPrepared } from './sign-prepared.js';
import { TokenSet } from './token-set.js';
import { TokenWatch } from './token-watch.js';

export interface DesktopSignerOptions {
  /** PKCS#11 module files to use (e.g. findModules() of native/ plus the user's own). */
  modulePaths: string[];
  pinPrompt: PinPrompt;
  now?: () => Date;
  /** Largest prepared PDF accepted, in bytes (default 50 MiB, the server's default MOHAR_MAX_PDF_BYTES). */
  maxPdfBytes?: number;
  /** Display names of modules by path (default: the known vendor product, else the file name). */
  moduleNames?: Record<string, string>;
  /**
   * Token watching: poll interval (default 1000 ms) and 'reinitialize' for modules that only see new tokens after
   * C_Initialize (SoftHSM).
   */
  watch?: { intervalMs?: number; rescan?: 'none' | 'reinitialize' };
  /** B-T: embed a signature timestamp from this TSA (default B-B, no timestamp). */
  timestamp?: { tsaUrl: string; transport: HttpTransport };
  /** How batch signing reaches the servers of its links (default: fetch). */
  http?: BatchHttp;
  /** Told about modules that fail to load and token polls that fail (never about PINs). */
  onError?: (error: unknown) => void;
}

export type DesktopSigner = MoharDesktopBridge & {
  /** The signing links handed over (deep links, a list) and their one-PIN signing (main/signer/batch.ts). */
  readonly batch: SigningBatch;
  close(): Promise<void>;
};

const DEFAULT_MAX_PDF_BYTES = 50 * 1024 * 1024;

export function createDesktopSigner(options: DesktopSignerOptions): DesktopSigner {
  const now = options.now ?? (() => new Date());
  const report = options.onError ?? (() => undefined);
  const tokens = new TokenSet([...options.modulePaths], options.moduleNames ?? {}, (failure: ModuleLoadFailure) =>
    report(failure.error),
  );
  const watch = new TokenWatch(
    tokens,
    now,
    { intervalMs: options.watch?.intervalMs ?? 1000, rescan: options.watch?.rescan ?? 'none' },
    report,
  );
  const busy = new Set<string>();
  const batch = new SigningBatch({
    tokens,
    pinPrompt: options.pinPrompt,
    now,
    level: options.timestamp ? 'B-T' : 'B-B',
    ...(options.timestamp ? { timestamp: options.timestamp } : {}),
    busy,
    http: options.http ?? fetchHttp(),
  });
  let closed = false;
  const closedResult = <T>(): BridgeResult<T> => failed('signing_failed', 'Mohar Desktop is shutting down.');

  return {
    version: DESKTOP_BRIDGE_VERSION,
    batch,

    async listTokens(): Promise<BridgeResult<TokenInfo[]>> {
      if (closed) return closedResult();
      try {
        return ok(await tokens.list(now()));
      } catch (error) {
        return failed(
          'signing_failed',
          `The tokens could not be read: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    },

    watchTokens(listener: (tokens: TokenInfo[]) => void): () => void {
      if (typeof listener !== 'function') throw new TypeError('watchTokens needs a listener function');
      return watch.subscribe(listener);
    },

    async signPrepared(request): Promise<BridgeResult<SignPreparedResult>> {
      if (closed) return closedResult();
      return signPrepared(
        {
          tokens,
          pinPrompt: options.pinPrompt,
          now,
          maxPdfBytes: options.maxPdfBytes ?? DEFAULT_MAX_PDF_BYTES,
          level: options.timestamp ? 'B-T' : 'B-B',
          ...(options.timestamp ? { timestamp: options.timestamp } : {}),
          busy,
        },
        request,
      );
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await watch.close();
      await tokens.close();
    },
  };
}
