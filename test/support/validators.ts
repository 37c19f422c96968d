/**
 * Independent judges of Mohar's signatures: poppler's pdfsig, qpdf, openssl cms and openssl ts.
 * They read the files themselves; Mohar's own verifier is never the only judge.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function inTempDir<T>(work: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'mohar-judge-'));
  try {
    return work(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** pdfsig's verdict per signature, in file order: true when "Signature is Valid". */
export function pdfsigVerdicts(pdf: Uint8Array): { valid: boolean[]; output: string } {
  return inTempDir((dir) => {
    writeFileSync(join(dir, 'f.pdf'), pdf);
    const run = spawnSync('pdfsig', [join(dir, 'f.pdf')], { encoding: 'utf8' });
    const output = run.stdout + run.stderr;
    return {
      valid: (output.match(/Signature Validation: .*/g) ?? []).map((line) => /Signature is Valid/.test(line)),
      output,
    };
  });
}

/** The signed bytes and the DER CMS of the signature whose /ByteRange is given, cut from the file by offsets. */
export function signedParts(pdf: Uint8Array, byteRange: readonly number[]): { data: Buffer; cms: Buffer } {
  const [, a = 0, b = 0, c = 0] = byteRange;
  const bytes = Buffer.from(pdf);
  const padded = Buffer.from(bytes.subarray(a + 1, b - 1).toString('latin1'), 'hex');
  const lengthBytes = padded[1]! & 0x7f;
  const length = padded[1]! < 0x80 ? padded[1]! : padded.subarray(2, 2 + lengthBytes).reduce((n, x) => n * 256 + x, 0);
  const header = padded[1]! < 0x80 ? 2 : 2 + lengthBytes;
  return {
    data: Buffer.concat([bytes.subarray(0, a), bytes.subarray(b, b + c)]),
    cms: padded.subarray(0, header + length),
  };
}

/** `openssl cms -verify` of a detached CMS over `data`, chaining to `caFile`. */
export function opensslCmsVerify(cms: Uint8Array, data: Uint8Array, caFile: string): { ok: boolean; output: string } {
  return inTempDir((dir) => {
    writeFileSync(join(dir, 'sig.der'), cms);
    writeFileSync(join(dir, 'data.bin'), data);
    const run = spawnSync(
      'openssl',
      [
        'cms',
        '-verify',
        '-binary',
        '-inform',
        'DER',
        '-in',
        join(dir, 'sig.der'),
        '-content',
        join(dir, 'data.bin'),
        '-CAfile',
        caFile,
        '-purpose',
        'any',
        '-out',
        join(dir, 'out.bin'),
      ],
      { encoding: 'utf8' },
    );
    return { ok: run.status === 0 && /Verification successful/.test(run.stderr), output: run.stderr };
  });
}

/** `openssl ts -verify` of a TimeStampToken over `data` (e.g. a signature value), chaining to `caFile`. */
export function opensslTsVerify(
  token: Uint8Array,
  data: Uint8Array,
  caFile: string,
  untrustedPem?: string,
): { ok: boolean; output: string } {
  return inTempDir((dir) => {
    writeFileSync(join(dir, 'token.der'), token);
    writeFileSync(join(dir, 'data.bin'), data);
    const args = [
      'ts',
      '-verify',
      '-data',
      join(dir, 'data.bin'),
      '-in',
      join(dir, 'token.der'),
      '-token_in',
      '-CAfile',
      caFile,
    ];
    if (untrustedPem) {
      writeFileSync(join(dir, 'untrusted.pem'), untrustedPem);
      args.push('-untrusted', join(dir, 'untrusted.pem'));
    }
    const run = spawnSync('openssl', args, { encoding: 'utf8' });
    return { ok: /Verification: OK/.test(run.stdout), output: run.stdout + run.stderr };
  });
}
