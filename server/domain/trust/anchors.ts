/**
 * DSC trust anchors: the CCA India roots shipped with Mohar as data (server/trust/anchors/*.pem, never
 * fetched at run time) plus the operator's extra bundle (MOHAR_DSC_TRUST_ANCHORS, read by config.ts).
 * The built-in roots are read once per process; configured anchors are added, never replacing them.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../../config.js';

let builtIn: Uint8Array[] | undefined;

/** server/trust/anchors, found from this module both in the source tree and in dist/ (which has no .pem files). */
function anchorsDirectory(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    for (const candidate of [join(dir, 'trust', 'anchors'), join(dir, 'server', 'trust', 'anchors')]) {
      if (existsSync(candidate)) return candidate;
    }
    dir = dirname(dir);
  }
  throw new Error('the built-in DSC trust anchors (server/trust/anchors) are missing from this installation');
}

function pemCertificates(pem: string): Uint8Array[] {
  return [...pem.matchAll(/-----BEGIN CERTIFICATE-----([A-Za-z0-9+/=\s]+)-----END CERTIFICATE-----/g)].map(
    (m) => new Uint8Array(Buffer.from(m[1]!.replace(/\s+/g, ''), 'base64')),
  );
}

/** The CCA India roots shipped with Mohar (DER). */
export function builtInAnchors(): readonly Uint8Array[] {
  if (!builtIn) {
    const dir = anchorsDirectory();
    builtIn = readdirSync(dir)
      .filter((f) => f.endsWith('.pem'))
      .sort()
      .flatMap((f) => pemCertificates(readFileSync(join(dir, f), 'latin1')));
  }
  return builtIn;
}

/** Every anchor a DSC chain may end in: the built-in roots and the configured ones. */
export function dscTrustAnchors(config: Config): readonly Uint8Array[] {
  return [...builtInAnchors(), ...config.dscTrustAnchors];
}
