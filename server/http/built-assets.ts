/**
 * Hashed files of a Vite build (renderer/dist/assets, renderer/dist-console/assets): read once, gzipped once,
 * cached for a year. Names are checked against one flat pattern (and one sub-folder for pdf.js's decoders and
 * fonts), so a request can never reach outside the build.
 */
import { readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.wasm': 'application/wasm',
  '.ttf': 'font/ttf',
  '.pfb': 'application/x-font-type1',
};
const gzip = promisify(gzipCallback);
const COMPRESSIBLE = new Set(['.js', '.mjs', '.css', '.svg']);
const ASSET_NAME = /^[A-Za-z0-9_.-]{1,200}$/;
/** The one sub-folder: pdf.js's decoders and standard fonts (renderer/vite.config.ts). */
const RESOURCE_DIR = /^pdfjs-\d+\.\d+\.\d+$/;

interface Asset {
  readonly body: Buffer;
  readonly gzip: Buffer | null;
  readonly type: string;
}

export type SendAsset = (
  request: FastifyRequest,
  reply: FastifyReply,
  subdir: string | null,
  file: string,
) => Promise<FastifyReply>;

/** Serves `{dir}/assets/[subdir/]file`; unknown or ill-named files fall through to the 404 handler. */
export function builtAssets(dir: string): SendAsset {
  const assets = new Map<string, Promise<Asset | null>>();

  function loadAsset(name: string): Promise<Asset | null> {
    let pending = assets.get(name);
    if (!pending) {
      pending = readFile(join(dir, 'assets', name)).then(
        async (body) => ({
          body,
          type: TYPES[extname(name)] ?? 'application/octet-stream',
          gzip: COMPRESSIBLE.has(extname(name)) ? await gzip(body, { level: 9 }) : null,
        }),
        () => null,
      );
      // Only found files stay cached: a later build may add the missing one.
      void pending.then((asset) => asset ?? assets.delete(name));
      assets.set(name, pending);
    }
    return pending;
  }

  return async (request, reply, subdir, file) => {
    const valid = ASSET_NAME.test(file) && !file.startsWith('.') && (subdir === null || RESOURCE_DIR.test(subdir));
    const asset = valid ? await loadAsset(subdir === null ? file : `${subdir}/${file}`) : null;
    if (!asset) return reply.callNotFound() as unknown as FastifyReply;
    const gzipped = asset.gzip && /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
    reply
      .type(asset.type)
      .header('Cache-Control', 'public, max-age=31536000, immutable')
      .header('X-Content-Type-Options', 'nosniff')
      .header('Cross-Origin-Resource-Policy', 'same-origin');
    if (asset.gzip) reply.header('Vary', 'Accept-Encoding');
    if (gzipped) reply.header('Content-Encoding', 'gzip');
    return reply.send(gzipped ? asset.gzip : asset.body);
  };
}

/** A built HTML page, read again when a new build replaced it (a running server follows `vite build --watch`). */
export function builtPage(file: string, onMissing: () => void): () => Promise<string | null> {
  let page: { html: string; mtimeMs: number } | null = null;
  let warned = false;
  return async () => {
    try {
      const { mtimeMs } = await stat(file);
      if (page?.mtimeMs !== mtimeMs) page = { html: await readFile(file, 'utf8'), mtimeMs };
      return page.html;
    } catch {
      if (!warned) onMissing();
      warned = true;
      page = null;
      return null;
    }
  };
}
