/**
 * Where PKCS#11 modules of the tokens sold in India live, per OS (from the vendors' installers as gathered in
 * the project's reference notes: ePass2003 / Longmai-Feitian "castle", WatchData ProxKey, Longmai mToken CryptoID,
 * SafeNet / Gemalto eToken and IDPrime, OpenSC), plus paths the caller adds (settings, command line).
 * native/ never reads the environment: the caller passes extra paths in.
 */
import { existsSync, realpathSync } from 'node:fs';

export type ModulePlatform = 'win32' | 'linux' | 'darwin';

export interface KnownModule {
  readonly vendor: string;
  readonly product: string;
  readonly path: string;
}

export interface ModuleCandidate {
  readonly path: string;
  /** Vendor / product of a known module; null for caller-supplied paths. */
  readonly vendor: string | null;
  readonly product: string | null;
  readonly source: 'extra' | 'known';
}

export interface FindModulesOptions {
  /** process.platform of the machine (anything else than win32/darwin is treated as linux). */
  readonly platform: string;
  /** Caller-supplied module paths, tried first (e.g. from the user's settings). */
  readonly extraPaths?: readonly string[];
  /** File existence check; default fs.existsSync. */
  readonly exists?: (path: string) => boolean;
  /**
   * Canonical path, so one library reachable through symlinks (e.g. .../pkcs11/opensc-pkcs11.so) is offered
   * once. Default fs.realpathSync when `exists` is not given, else the path itself.
   */
  readonly realpath?: (path: string) => string;
}

const WIN_SYSTEM32 = 'C:\\Windows\\System32';
const LINUX_LIB_DIRS = [
  '/usr/lib',
  '/usr/local/lib',
  '/usr/lib64',
  '/usr/lib/x86_64-linux-gnu',
  '/usr/lib/aarch64-linux-gnu',
];
const MAC_LIB_DIRS = ['/usr/local/lib', '/Library/Frameworks/eToken.framework/Versions/A', '/opt/homebrew/lib'];

function inDirs(dirs: readonly string[], file: string, sep = '/'): string[] {
  return dirs.map((dir) => `${dir}${sep}${file}`);
}

function entries(vendor: string, product: string, paths: readonly string[]): KnownModule[] {
  return paths.map((path) => ({ vendor, product, path }));
}

export const KNOWN_MODULES: Readonly<Record<ModulePlatform, readonly KnownModule[]>> = {
  win32: [
    ...entries('Longmai/Feitian', 'ePass2003', [
      `${WIN_SYSTEM32}\\eps2003csp1164.dll`,
      `${WIN_SYSTEM32}\\eps2003csp11.dll`,
    ]),
    ...entries('WatchData', 'ProxKey', [`${WIN_SYSTEM32}\\SignatureP11.dll`, `${WIN_SYSTEM32}\\wdpkcs.dll`]),
    ...entries('Longmai', 'mToken CryptoID', [`${WIN_SYSTEM32}\\CryptoIDA_pkcs11.dll`]),
    ...entries('SafeNet/Gemalto', 'eToken', [`${WIN_SYSTEM32}\\eTPKCS11.dll`]),
    ...entries('SafeNet/Gemalto', 'IDPrime', [`${WIN_SYSTEM32}\\IDPrimePKCS11.dll`]),
    ...entries('OpenSC', 'OpenSC', [
      'C:\\Program Files\\OpenSC Project\\OpenSC\\pkcs11\\opensc-pkcs11.dll',
      `${WIN_SYSTEM32}\\opensc-pkcs11.dll`,
    ]),
  ],
  linux: [
    ...entries('Longmai/Feitian', 'ePass2003', [
      ...inDirs(LINUX_LIB_DIRS, 'libcastle_v2.so.1.0.0'),
      ...inDirs(LINUX_LIB_DIRS, 'libcastle.so.1.0.0'),
    ]),
    ...entries('WatchData', 'ProxKey', ['/usr/lib/WatchData/ProxKey/lib/libwdpkcs_SignatureP11.so']),
    ...entries('Longmai', 'mToken CryptoID', inDirs(LINUX_LIB_DIRS, 'libcryptoida_pkcs11.so')),
    ...entries('SafeNet/Gemalto', 'eToken', inDirs(LINUX_LIB_DIRS, 'libeTPkcs11.so')),
    ...entries('OpenSC', 'OpenSC', [
      ...inDirs(LINUX_LIB_DIRS, 'opensc-pkcs11.so'),
      '/usr/lib/x86_64-linux-gnu/pkcs11/opensc-pkcs11.so',
    ]),
  ],
  darwin: [
    ...entries('Longmai/Feitian', 'ePass2003', [
      ...inDirs(MAC_LIB_DIRS, 'libcastle_v2.1.0.0.dylib'),
      ...inDirs(MAC_LIB_DIRS, 'libcastle.1.0.0.dylib'),
    ]),
    ...entries('WatchData', 'ProxKey', inDirs(MAC_LIB_DIRS, 'libwdpkcs_Proxkey.dylib')),
    ...entries('Longmai', 'mToken CryptoID', inDirs(MAC_LIB_DIRS, 'libcryptoid_pkcs11.dylib')),
    ...entries('SafeNet/Gemalto', 'eToken', inDirs(MAC_LIB_DIRS, 'libeTPkcs11.dylib')),
    ...entries('OpenSC', 'OpenSC', [
      '/Library/OpenSC/lib/opensc-pkcs11.so',
      ...inDirs(MAC_LIB_DIRS, 'opensc-pkcs11.so'),
    ]),
  ],
};

export function modulePlatform(platform: string): ModulePlatform {
  return platform === 'win32' || platform === 'darwin' ? platform : 'linux';
}

/** Every known module path for the platform, whether or not it is installed. */
export function knownModules(platform: string): readonly KnownModule[] {
  return KNOWN_MODULES[modulePlatform(platform)];
}

/**
 * The module files that exist on this machine: caller-supplied paths first (in the given order), then the
 * known vendor paths; each path once. Loading them (and reporting the ones that fail) is openModules().
 */
export function findModules(options: FindModulesOptions): ModuleCandidate[] {
  const exists = options.exists ?? existsSync;
  const canonical = options.realpath ?? (options.exists ? (path: string) => path : realpathSync);
  const seen = new Set<string>();
  const out: ModuleCandidate[] = [];
  const key = (path: string): string => {
    let real = path;
    try {
      real = canonical(path);
    } catch {
      // keep the path as given
    }
    return modulePlatform(options.platform) === 'win32' ? real.toLowerCase() : real;
  };
  const consider = (path: string, candidate: ModuleCandidate): void => {
    if (path.length === 0 || !exists(path)) return;
    const k = key(path);
    if (seen.has(k)) return;
    seen.add(k);
    out.push(candidate);
  };
  for (const path of options.extraPaths ?? []) consider(path, { path, vendor: null, product: null, source: 'extra' });
  for (const known of knownModules(options.platform)) {
    consider(known.path, { path: known.path, vendor: known.vendor, product: known.product, source: 'known' });
  }
  return out;
}
