/**
 * Builds the hosted signing page: `vite build renderer` writes renderer/dist, which the server serves at
 * /sign/{token} (index.html) and /sign/assets/* (hashed files, cached for a year). `vite renderer` runs a
 * development server that forwards the API to a Mohar server on 127.0.0.1:8080.
 */
import { defineConfig } from 'vite';

export default defineConfig({
  base: '/sign/',
  // React's automatic JSX runtime through Vite's own transform (no plugin needed).
  oxc: { jsx: { runtime: 'automatic', importSource: 'react' } },
  build: {
    outDir: 'dist',
    assetsDir: 'assets',
    emptyOutDir: true,
    target: 'es2022',
    reportCompressedSize: false,
    // Fonts and images stay files: the page's CSP has no need for data: fonts.
    assetsInlineLimit: 0,
  },
  server: { proxy: { '/backend': 'http://127.0.0.1:8080' } },
});
