/** What both renderer builds share (the signing page: vite.config.ts; the office console: vite.console.config.ts). */
import { readdirSync, readFileSync } from 'node:fs';
import type { Plugin } from 'vite';

const PDFJS = new URL('../node_modules/pdfjs-dist/', import.meta.url);

/**
 * pdf.js fetches a few files at run time when a document needs them: WebAssembly decoders (JPEG 2000, JBIG2,
 * ICC colour) and the standard 14 fonts for PDFs that do not embed theirs. They go into assets/pdfjs-<version>/,
 * the folder renderer/src/pdf/load-pdf.ts gives pdf.js.
 */
export function pdfjsResources(): Plugin {
  const version = (JSON.parse(readFileSync(new URL('package.json', PDFJS), 'utf8')) as { version: string }).version;
  return {
    name: 'mohar-pdfjs-resources',
    apply: 'build',
    generateBundle() {
      for (const [dir, pattern] of [
        ['wasm/', /\.wasm$|^LICENSE/],
        ['standard_fonts/', /\.(pfb|ttf)$|^LICENSE/],
      ] as const) {
        for (const file of readdirSync(new URL(dir, PDFJS))) {
          if (pattern.test(file)) {
            this.emitFile({
              type: 'asset',
              fileName: `assets/pdfjs-${version}/${file}`,
              source: readFileSync(new URL(dir + file, PDFJS)),
            });
          }
        }
      }
    },
  };
}
