/**
 * Helpers of the signing-engine benchmark (bench/signing.ts) and its child process
 * (bench/signing-child.ts): statistics, the timing wrapper around a SignatureProvider, the token
 * signer, and the ~50 MB test PDF.
 */
import { readFileSync } from 'node:fs';
import { Pkcs11Module, tokenSigner } from '../native/index.js';
import type { SignatureProvider } from '../pdf/index.js';
import { buildPdf, type FixtureObject } from '../test/support/pdf-fixtures.js';

export const MIB = 1024 * 1024;

export interface Stats {
  n: number;
  median: number;
  p90: number;
  min: number;
  max: number;
}

/** Median (mean of the two middle values for an even count), p90 (nearest rank), min, max. */
export function stats(values: readonly number[]): Stats {
  if (values.length === 0) throw new Error('stats of no values');
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  const median = s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  const p90 = s[Math.min(s.length - 1, Math.ceil(0.9 * s.length) - 1)]!;
  return { n: s.length, median: round(median), p90: round(p90), min: round(s[0]!), max: round(s[s.length - 1]!) };
}

export const round = (n: number, digits = 2): number => Math.round(n * 10 ** digits) / 10 ** digits;

/** Wall time of a synchronous call, in milliseconds. */
export function timeSync<T>(fn: () => T): { value: T; ms: number } {
  const t0 = performance.now();
  const value = fn();
  return { value, ms: performance.now() - t0 };
}

/** Wall time of an asynchronous call, in milliseconds. */
export async function timeAsync<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const t0 = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - t0 };
}

/**
 * The provider with its sign() timed: `take()` returns the milliseconds spent inside sign() since
 * the last take() (the token operation: session, login, key lookup, C_Sign, check, logout).
 */
export function timedProvider(provider: SignatureProvider): {
  provider: SignatureProvider;
  take(): number;
  calls(): number;
} {
  let spent = 0;
  let count = 0;
  return {
    provider: {
      certificate: provider.certificate,
      chain: provider.chain,
      keyType: provider.keyType,
      async sign(data) {
        const t0 = performance.now();
        try {
          return await provider.sign(data);
        } finally {
          spent += performance.now() - t0;
          count++;
        }
      },
    },
    take() {
      const ms = spent;
      spent = 0;
      return ms;
    },
    calls: () => count,
  };
}

export interface TokenKeyChoice {
  readonly modulePath: string;
  readonly serial: string;
  readonly certId: string;
  readonly pin: string;
}

/** A reusable token signer (the PIN is given on every sign(), as a PIN dialog would). */
export async function openTokenSigner(module: Pkcs11Module, key: TokenKeyChoice): Promise<SignatureProvider> {
  return tokenSigner({ module, token: { serial: key.serial }, certId: key.certId, pin: () => key.pin });
}

/** Where the signature goes in every run: a visible field on page 1. */
export const VISIBLE_FIELD = { page: 1, rect: { x: 30, y: 30, width: 180, height: 50 } } as const;

/**
 * A valid PDF of about `targetBytes`: `pages` Letter pages, each showing one uncompressed DeviceRGB
 * image XObject filled with random (incompressible) bytes. Classic xref table, with an /ID as real
 * producers write it. `fill` fills a buffer with random bytes.
 */
export function makeBigPdf(targetBytes: number, fill: (buf: Buffer) => void, pages = 4): Buffer {
  const width = 1024;
  const height = Math.max(1, Math.floor(targetBytes / pages / (width * 3)));
  const objects: FixtureObject[] = [];
  const pageNums: number[] = [];
  let next = 3;
  for (let i = 0; i < pages; i++) {
    const page = next++;
    const content = next++;
    const image = next++;
    pageNums.push(page);
    const data = Buffer.allocUnsafe(width * height * 3);
    fill(data);
    objects.push({
      num: image,
      dict: `/Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace /DeviceRGB /BitsPerComponent 8`,
      stream: data,
    });
    objects.push({
      num: content,
      dict: '',
      stream: `q 612 0 0 792 0 0 cm /Im0 Do Q\nBT /F1 24 Tf 72 740 Td (Page ${i + 1}) Tj ET\n`,
    });
    objects.push({
      num: page,
      body: `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${content} 0 R /Resources << /XObject << /Im0 ${image} 0 R >> /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> >>`,
    });
  }
  objects.push({
    num: 2,
    body: `<< /Type /Pages /Kids [${pageNums.map((n) => `${n} 0 R`).join(' ')}] /Count ${pages} >>`,
  });
  objects.push({ num: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' });
  const id = '<0123456789ABCDEF0123456789ABCDEF>';
  return buildPdf(objects, `/Root 1 0 R /ID [${id} ${id}]`);
}

/** Peak resident set size of this process, in bytes: getrusage ru_maxrss and /proc VmHWM (Linux). */
export function peakRss(): { maxRssBytes: number; vmHwmBytes: number | null } {
  let vmHwmBytes: number | null = null;
  try {
    const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) vmHwmBytes = Number(m[1]) * 1024;
  } catch {
    // not Linux
  }
  return { maxRssBytes: process.resourceUsage().maxRSS * 1024, vmHwmBytes };
}

/** What bench/signing-child.ts prints (one JSON line on stdout). */
export interface ChildReport {
  fileBytes: number;
  /** RSS once the modules were loaded, before the token was opened. */
  rssAfterImportBytes: number;
  /** RSS after the warm-up signature on a 1-page PDF, before the big file was read. */
  rssBeforeReadBytes: number;
  /** RSS just after reading the file. */
  rssAfterReadBytes: number;
  signMs: number;
  tokenMs: number;
  /** Median SHA-256 time of the same bytes, same process, after the signature. */
  sha256Ms: number;
  maxRssBytes: number;
  vmHwmBytes: number | null;
  signedBytes: number;
}
