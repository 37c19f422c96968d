/**
 * Builds the office console: `vite build renderer -c renderer/vite.console.config.ts` writes
 * renderer/dist-console, which the server serves at /app (console.html for every path under it) and
 * /app/assets/* (hashed files). It shares components (src/shared/), pdf.js and the design with the signing
 * page, but is a build of its own so a signer's page never downloads the console.
 */
import { defineConfig } from 'vite';
import { pdfjsResources } from './vite.shared.js';

export default defineConfig({
  root: new URL('.', import.meta.url).pathname,
  base: '/app/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'react' } },
  plugins: [pdfjsResources()],
  build: {
    outDir: 'dist-console',
    assetsDir: 'assets',
    emptyOutDir: true,
    target: 'es2022',
    reportCompressedSize: false,
    assetsInlineLimit: 0,
    rollupOptions: { input: new URL('console.html', import.meta.url).pathname },
  },
  server: { proxy: { '/backend': 'http://127.0.0.1:8080' } },
});
