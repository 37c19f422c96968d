/**
 * Which token drivers (PKCS#11 middleware) are installed: native's table of known module files per OS
 * (native/modules.ts) grouped by product, plus installation folders of products whose library file name we have
 * not confirmed (a folder without a known library: the doctor asks the signer to name the file). The file system
 * is a parameter so tests use a fake one.
 */
import { knownModules, modulePlatform } from '../../native/index.js';

export interface MiddlewareStatus {
  readonly product: string;
  readonly vendor: string;
  /** installed: a known library file exists; folder-only: only its installation folder does; missing: neither. */
  readonly state: 'installed' | 'folder-only' | 'missing';
  /** The library files (installed) or folders (folder-only) found. */
  readonly found: readonly string[];
}

/**
 * Installation folders without a confirmed library file name. Trust Key (WatchData) installs under this folder on
 * Linux, as its uninstall instructions show. HyperPKI and others are not listed: we know no path for them yet, so
 * the doctor says "name the driver file" rather than guessing.
 */
const FOLDERS: Readonly<
  Record<'win32' | 'linux' | 'darwin', readonly { vendor: string; product: string; path: string }[]>
> = {
  win32: [],
  linux: [{ vendor: 'WatchData', product: 'Trust Key', path: '/usr/lib/WatchData/TRUSTKEY' }],
  darwin: [],
};

export interface MiddlewareCheck {
  readonly platform: string;
  readonly exists: (path: string) => boolean;
}

export function checkMiddleware({ platform, exists }: MiddlewareCheck): MiddlewareStatus[] {
  const byProduct = new Map<string, { vendor: string; files: string[]; folders: string[] }>();
  const entry = (vendor: string, product: string) => {
    let e = byProduct.get(product);
    if (!e) byProduct.set(product, (e = { vendor, files: [], folders: [] }));
    return e;
  };
  for (const known of knownModules(platform)) {
    const e = entry(known.vendor, known.product);
    if (exists(known.path)) e.files.push(known.path);
  }
  for (const folder of FOLDERS[modulePlatform(platform)]) {
    const e = entry(folder.vendor, folder.product);
    if (exists(folder.path)) e.folders.push(folder.path);
  }
  return [...byProduct].map(([product, e]) => ({
    product,
    vendor: e.vendor,
    state: e.files.length > 0 ? 'installed' : e.folders.length > 0 ? 'folder-only' : 'missing',
    found: e.files.length > 0 ? e.files : e.folders,
  }));
}
