/**
 * What the Electron smoke test (electron-smoke.test.ts) needs, and why it is skipped when something is missing:
 * the Electron binary (not downloaded by `npm ci` here), a display (Xvfb in CI), the native modules rebuilt
 * for Electron's ABI (the suite itself needs them built for Node's), and the token and judging tools.
 * With MOHAR_TEST_ELECTRON=required (the workflow's smoke job) a missing prerequisite fails instead.
 * Pure where it can be (the paths and the probe are parameters), so prerequisites.test.ts runs everywhere.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export const ROOT = new URL('../../', import.meta.url).pathname;

/** The Electron executable the electron package downloaded (node_modules/electron/path.txt names it), or why not. */
export function electronBinary(root = ROOT): { path: string } | { missing: string } {
  const pkg = join(root, 'node_modules', 'electron');
  const pathFile = join(pkg, 'path.txt');
  if (!existsSync(pathFile)) {
    return {
      missing:
        'no Electron binary: node_modules/electron/path.txt is absent (the download is disabled here, ' +
        'ELECTRON_SKIP_BINARY_DOWNLOAD / allowScripts); run `npm run desktop:fetch-electron` on a machine with network',
    };
  }
  const path = join(pkg, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(path)
    ? { path }
    : { missing: `no Electron binary at ${path} (run npm run desktop:fetch-electron)` };
}

/**
 * Which ABI better-sqlite3 (the embedded server's database; not Node-API, unlike pkcs11js) is built for, judged
 * by loading it in a child Node: Node loads only its own ABI and names the other one when it refuses.
 */
export type NativeBuild = { builtFor: 'node' } | { builtFor: 'other'; moduleVersion: number } | { unknown: string };

export function classifyNativeLoad(status: number | null, output: string): NativeBuild {
  if (status === 0) return { builtFor: 'node' };
  const version = /compiled against a different Node\.js version using\s+NODE_MODULE_VERSION (\d+)/.exec(output);
  if (version) return { builtFor: 'other', moduleVersion: Number(version[1]) };
  return { unknown: output.trim().split('\n').slice(0, 3).join(' ') };
}

export function probeBetterSqlite(root = ROOT): NativeBuild {
  const run = spawnSync(process.execPath, ['-e', "const D = require('better-sqlite3'); new D(':memory:').close();"], {
    cwd: root,
    encoding: 'utf8',
    timeout: 30_000,
  });
  return classifyNativeLoad(run.status, `${run.stdout}${run.stderr}`);
}

/** Why the app could not load its database module inside this Electron, or null when it can. */
export function nativeProblem(build: NativeBuild, electronAbi: number): string | null {
  if ('unknown' in build) return `better-sqlite3 does not load: ${build.unknown}`;
  if (build.builtFor === 'other' && build.moduleVersion === electronAbi) return null;
  const builtFor = build.builtFor === 'node' ? `Node (ABI ${process.versions.modules})` : `ABI ${build.moduleVersion}`;
  return (
    `better-sqlite3 is built for ${builtFor}, not for Electron (ABI ${electronAbi}): the suite needs the Node build. ` +
    'To run this test: npx electron-builder install-app-deps, then npm rebuild better-sqlite3 afterwards'
  );
}

export function onPath(command: string, path = process.env.PATH ?? ''): boolean {
  return path.split(delimiter).some((dir) => dir !== '' && existsSync(join(dir, command)));
}

export interface Prerequisites {
  /** The Electron executable, when everything is there. */
  readonly electronPath: string | undefined;
  /** Everything missing, in words (empty when the test can run). */
  readonly missing: string[];
}

export function desktopPrerequisites(env: NodeJS.ProcessEnv = process.env, root = ROOT): Prerequisites {
  const missing: string[] = [];
  const binary = electronBinary(root);
  if ('missing' in binary) missing.push(binary.missing);
  if (process.platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY) {
    missing.push('no display (DISPLAY): run the test under xvfb-run');
  }
  for (const tool of ['softhsm2-util', 'pkcs11-tool', 'pdfsig', 'openssl']) {
    if (!onPath(tool, env.PATH)) missing.push(`${tool} is not installed`);
  }
  // Only worth a child process when Electron is there at all.
  if ('path' in binary) {
    const abi = Number(readFileSync(join(root, 'node_modules', 'electron', 'abi_version'), 'utf8').trim());
    const problem = nativeProblem(probeBetterSqlite(root), abi);
    if (problem) missing.push(problem);
  }
  return { electronPath: 'path' in binary ? binary.path : undefined, missing };
}
