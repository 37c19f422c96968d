#!/usr/bin/env node
// Builds Mohar Desktop into dist/ (npm run desktop:build). Needs no Electron binary:
//   1. tsc compiles the main process (main/electron/main.ts and everything it imports: main/signer,
//      server/, native/, pdf/, common/) as ES modules into dist/ (tsconfig.desktop.json);
//   2. the PIN window's preload is type-checked with the DOM library (main/electron/pin-window/tsconfig.json);
//   3. esbuild bundles the two preloads to CommonJS (sandboxed preloads cannot load ES modules or
//      Mohar's files: each must be one self-contained script; only 'electron' stays a require);
//   4. the PIN window's HTML and CSS are copied next to its preload.
// Packaging (npm run desktop:dist) then runs electron-builder with electron-builder.yml.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
const out = join(root, 'dist', 'main', 'electron');

function tsc(project) {
  const run = spawnSync(
    process.execPath,
    [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, project)],
    { stdio: 'inherit' },
  );
  if (run.status !== 0) process.exit(run.status ?? 1);
}

tsc('tsconfig.desktop.json');
tsc('main/electron/pin-window/tsconfig.json');

const preload = {
  bundle: true,
  format: 'cjs',
  platform: 'browser',
  target: 'es2022',
  external: ['electron'],
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
};
await build({ ...preload, entryPoints: [join(root, 'main/electron/preload.ts')], outfile: join(out, 'preload.cjs') });
await build({
  ...preload,
  entryPoints: [join(root, 'main/electron/pin-window/pin-preload.ts')],
  outfile: join(out, 'pin-window', 'pin-preload.cjs'),
});

mkdirSync(join(out, 'pin-window'), { recursive: true });
for (const file of ['pin.html', 'pin.css']) {
  copyFileSync(join(root, 'main/electron/pin-window', file), join(out, 'pin-window', file));
}
process.stdout.write(
  `Mohar Desktop built: ${join('dist', 'main', 'electron', 'main.js')} (run it with: npx electron ${join('dist', 'main', 'electron', 'main.js')})\n`,
);
