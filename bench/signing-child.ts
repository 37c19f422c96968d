/**
 * One large-file signature in a process of its own, so its peak RSS can be read:
 *
 *   node --import tsx bench/signing-child.ts <input.pdf> [<output.pdf>]
 *
 * Started by bench/signing.ts with the token in the environment (SOFTHSM2_CONF, MOHAR_BENCH_MODULE,
 * MOHAR_BENCH_SERIAL, MOHAR_BENCH_CERT_ID, MOHAR_BENCH_PIN). Warms up with two signatures on a
 * 1-page PDF, reads the input, signs it once (PAdES B-B, visible field, SoftHSM key), reads the peak
 * RSS, then times SHA-256 of the same bytes; prints one JSON line (ChildReport). Nothing is subtracted.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { Pkcs11Module } from '../native/index.js';
import { signPades } from '../pdf/index.js';
import { makePdf } from '../test/support/pdf-fixtures.js';
import { openTokenSigner, peakRss, stats, timedProvider, VISIBLE_FIELD, type ChildReport } from './signing-support.js';

function need(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (this script is started by bench/signing.ts)`);
  return value;
}

async function main(): Promise<void> {
  const [input, output] = process.argv.slice(2);
  if (!input) throw new Error('usage: signing-child.ts <input.pdf> [<output.pdf>]');
  const rssAfterImportBytes = process.memoryUsage.rss();
  const module = await Pkcs11Module.open(need('MOHAR_BENCH_MODULE'));
  try {
    const signer = await openTokenSigner(module, {
      modulePath: need('MOHAR_BENCH_MODULE'),
      serial: need('MOHAR_BENCH_SERIAL'),
      certId: need('MOHAR_BENCH_CERT_ID'),
      pin: need('MOHAR_BENCH_PIN'),
    });
    const timed = timedProvider(signer);
    const signingTime = new Date();
    const small = makePdf({ pages: 1 });
    for (let i = 0; i < 2; i++) {
      await signPades(small, timed.provider, { level: 'B-B', field: VISIBLE_FIELD, signingTime });
    }
    timed.take();
    const rssBeforeReadBytes = process.memoryUsage.rss();

    const bytes = readFileSync(input);
    const rssAfterReadBytes = process.memoryUsage.rss();
    const t0 = performance.now();
    const signed = await signPades(bytes, timed.provider, { level: 'B-B', field: VISIBLE_FIELD, signingTime });
    const signMs = performance.now() - t0;
    const tokenMs = timed.take();
    const peak = peakRss();

    const sha: number[] = [];
    for (let i = 0; i < 5; i++) {
      const s0 = performance.now();
      createHash('sha256').update(bytes).digest();
      sha.push(performance.now() - s0);
    }
    if (output) writeFileSync(output, signed.bytes);
    const report: ChildReport = {
      fileBytes: bytes.length,
      rssAfterImportBytes,
      rssBeforeReadBytes,
      rssAfterReadBytes,
      signMs,
      tokenMs,
      sha256Ms: stats(sha).median,
      maxRssBytes: peak.maxRssBytes,
      vmHwmBytes: peak.vmHwmBytes,
      signedBytes: signed.bytes.length,
    };
    process.stdout.write(`${JSON.stringify(report)}\n`);
  } finally {
    await module.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exitCode = 1;
});
