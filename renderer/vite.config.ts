/**
 * Builds the hosted signing page: `vite build renderer` writes renderer/dist, which the server serves at
 * /sign/{token} (index.html) and /sign/assets/* (hashed files, cached for a year). `vite renderer` runs a
 * development server that forwards the API to a Mohar server on 127.0.0.1:8080.
 */
import { defineConfig, type Plugin } from 'vite';
import { pdfjsResources } from './vite.shared.js';

/**
 * pdf.js is a chunk of its own (the link-state pages never need it), imported when the page starts. A
 * modulepreload in index.html lets the browser fetch it together with the entry instead of after it.
 */
function preloadPdfChunk(): Plugin {
  return {
    name: 'mohar-preload-pdf-chunk',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(_html, context) {
        const chunk = Object.values(context.bundle ?? {}).find(
          (c) => c.type === 'chunk' && c.isDynamicEntry && c.name === 'load-pdf',
        );
        return chunk
          ? [
              {
                tag: 'link',
                attrs: { rel: 'modulepreload', crossorigin: true, href: `/sign/${chunk.fileName}` },
                injectTo: 'head',
              },
            ]
          : [];
      },
    },
  };
}

export default defineConfig({
  base: '/sign/',
  // React's automatic JSX runtime through Vite's own transform (no plugin needed).
  oxc: { jsx: { runtime: 'automatic', importSource: 'react' } },
  plugins: [pdfjsResources(), preloadPdfChunk()],
  build: {
    outDir: 'dist',
    assetsDir: 'assets',
    emptyOutDir: true,
    target: 'es2022',
    reportCompressedSize: false,
    // Fonts and images stay files: the page's CSP has no need for data: fonts.
    assetsInlineLimit: 0,
    // The public verifier (/verify, server/routes/verify-page.ts) is a second page of this build: it shares the
    // components, the i18n and the design, and its assets are served under /sign/assets/ with the signing page's.
    rollupOptions: {
      input: {
        index: new URL('index.html', import.meta.url).pathname,
        verify: new URL('verify.html', import.meta.url).pathname,
      },
    },
  },
  server: { proxy: { '/backend': 'http://127.0.0.1:8080' } },
});
