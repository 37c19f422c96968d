/**
 * The token doctor's fact gathering (I/O): which drivers exist, which load, the tokens with their flags and every
 * certificate, and optionally a server's clock; then diagnose() (pure, doctor.ts) judges them.
 */
import { existsSync } from 'node:fs';
import type { DoctorReport } from '../../common/desktop-doctor.js';
import { findModules, openModules, type TokenCertificate as NativeCertificate } from '../../native/index.js';
import { diagnose, type DoctorToken } from './doctor.js';
import { checkMiddleware } from './middleware.js';
import { moduleDisplayName } from './token-view.js';

export interface DoctorRunOptions {
  readonly platform?: string;
  /** Module files the signer named (settings, --module); the known vendor files are found on their own. */
  readonly namedModules?: readonly string[];
  /** Only these modules are opened (e.g. the CLI's --module), instead of the named plus the found ones. */
  readonly onlyModules?: readonly string[];
  readonly exists?: (path: string) => boolean;
  readonly anchors: readonly Uint8Array[];
  readonly now?: Date;
  readonly referenceTime?: { readonly at: Date; readonly source: string } | null;
}

export async function runDoctor(options: DoctorRunOptions): Promise<DoctorReport> {
  const platform = options.platform ?? process.platform;
  const exists = options.exists ?? existsSync;
  const named = options.onlyModules ?? options.namedModules ?? [];
  const paths =
    options.onlyModules ??
    findModules({ platform, extraPaths: [...named], ...(options.exists ? { exists } : {}) }).map((c) => c.path);
  const { modules, failures } = await openModules(paths);
  const tokens: DoctorToken[] = [];
  try {
    for (const module of modules) {
      let listed;
      try {
        listed = (await module.listTokens()).filter((t) => t.initialized);
      } catch {
        continue;
      }
      for (const token of listed) {
        let certificates: NativeCertificate[] = [];
        try {
          certificates = await module.listCertificates(
            token.serial.length > 0 ? { serial: token.serial } : { slotId: token.slotId, label: token.label },
            { includeWithoutKey: true },
          );
        } catch {
          // removed meanwhile: reported without certificates
        }
        tokens.push({ token, moduleName: moduleDisplayName(module.path), certificates });
      }
    }
  } finally {
    await Promise.all(modules.map((m) => m.close()));
  }
  return diagnose({
    now: options.now ?? new Date(),
    middleware: checkMiddleware({ platform, exists }),
    namedModules: named,
    loadFailures: failures.map((f) => ({ path: f.path, message: f.error.message })),
    tokens,
    anchors: options.anchors,
    referenceTime: options.referenceTime ?? null,
  });
}

/** A server's clock from the Date header of a HEAD request; null when it cannot be read. */
export async function serverTime(
  url: string,
  fetchImpl: typeof fetch = fetch,
): Promise<{ at: Date; source: string } | null> {
  try {
    const response = await fetchImpl(url, { method: 'HEAD', signal: AbortSignal.timeout(5000) });
    const header = response.headers.get('date');
    const at = header ? new Date(header) : null;
    return at && !Number.isNaN(at.getTime()) ? { at, source: new URL(url).host } : null;
  } catch {
    return null;
  }
}
