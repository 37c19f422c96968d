/**
 * Helpers of the pdf/sign suites: checking a timestamp token with openssl, a JPEG made by poppler, and a
 * page rendered by ghostscript. The openssl signer and pdfsig are in test/support/openssl-signer.ts.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestSigner } from '../../support/openssl-signer.js';

/** Checks an RFC 3161 token over `data` with openssl ts -verify against the signer's TSA certificate. */
export function verifyTimestampToken(
  signer: TestSigner,
  token: Uint8Array,
  data: Uint8Array,
): { ok: boolean; output: string } {
  const tok = join(signer.dir, `verify-${Date.now()}-${Math.random()}.tst`);
  const dat = `${tok}.data`;
  writeFileSync(tok, token);
  writeFileSync(dat, data);
  const r = spawnSync(
    'openssl',
    ['ts', '-verify', '-data', dat, '-in', tok, '-token_in', '-CAfile', join(signer.dir, 'tsa.pem')],
    { encoding: 'utf8' },
  );
  return { ok: r.status === 0 && /Verification: OK/.test(r.stdout), output: r.stdout + r.stderr };
}

/** A JPEG made by poppler from a one-page PDF (a black box on white), `width` x `height` points. */
export function makeJpeg(pdf: Buffer): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'mohar-jpeg-'));
  try {
    writeFileSync(join(dir, 'in.pdf'), pdf);
    execFileSync('pdftoppm', ['-r', '36', '-jpeg', '-singlefile', join(dir, 'in.pdf'), join(dir, 'out')], {
      stdio: 'ignore',
    });
    return readFileSync(join(dir, 'out.jpg'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Renders one page with ghostscript (a second, independent renderer) at 72 dpi, 8-bit gray, CropBox. */
export function renderPageGrayGs(pdf: Uint8Array, page = 1): { width: number; height: number; pixels: Uint8Array } {
  const dir = mkdtempSync(join(tmpdir(), 'mohar-gs-'));
  try {
    writeFileSync(join(dir, 'in.pdf'), pdf);
    execFileSync(
      'gs',
      [
        '-q',
        '-dNOPAUSE',
        '-dBATCH',
        '-dSAFER',
        '-sDEVICE=pgmraw',
        '-r72',
        '-dUseCropBox',
        `-dFirstPage=${page}`,
        `-dLastPage=${page}`,
        `-sOutputFile=${join(dir, 'out.pgm')}`,
        join(dir, 'in.pdf'),
      ],
      { stdio: 'ignore' },
    );
    const pgm = readFileSync(join(dir, 'out.pgm'));
    const m = /^P5\s+(?:#[^\n]*\n\s*)*(\d+)\s+(\d+)\s+255\s/.exec(pgm.toString('latin1', 0, 200));
    if (!m) throw new Error('ghostscript did not write a PGM');
    const width = Number(m[1]);
    const height = Number(m[2]);
    return { width, height, pixels: pgm.subarray(m[0].length, m[0].length + width * height) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
