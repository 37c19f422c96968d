/**
 * Test helpers for signing without pdf/cms: a throw-away self-signed RSA certificate made with
 * openssl, detached CMS made with `openssl cms -sign`, and poppler's pdfsig report.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import type { PreparedSignature } from '../../../pdf/index.js';
import { byteRangeData } from '../../../pdf/sign/prepare.js';

export interface TestSigner {
  readonly dir: string;
  /** Detached CMS (SHA-256) over `data`, DER. */
  cms(data: Uint8Array): Buffer;
  /** A signPdf callback that signs the ByteRange bytes with openssl. */
  callback(): (digest: Uint8Array, prepared: PreparedSignature) => Promise<Uint8Array>;
  /** An RFC 3161 timestamp token over `data` from a throw-away TSA (openssl ts). */
  timestampToken(data: Uint8Array): Buffer;
  readonly certDer: Buffer;
  cleanup(): void;
}

export function makeTestSigner(cn = 'Mohar Test Signer'): TestSigner {
  const dir = mkdtempSync(join(tmpdir(), 'mohar-sign-'));
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '30',
      '-subj',
      `/CN=${cn}/O=Mohar Tests`,
      '-addext',
      'keyUsage=critical,digitalSignature,nonRepudiation',
    ],
    { stdio: 'ignore' },
  );
  // A TSA certificate with the critical timeStamping extended key usage, and openssl ts config.
  const tsaKey = join(dir, 'tsa-key.pem');
  const tsaCert = join(dir, 'tsa.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      tsaKey,
      '-out',
      tsaCert,
      '-days',
      '30',
      '-subj',
      '/CN=Mohar Test TSA',
      '-addext',
      'extendedKeyUsage=critical,timeStamping',
      '-addext',
      'keyUsage=critical,digitalSignature',
    ],
    { stdio: 'ignore' },
  );
  writeFileSync(join(dir, 'serial'), '01\n');
  writeFileSync(
    join(dir, 'ts.cnf'),
    [
      '[ tsa ]',
      'default_tsa = tsa_config',
      '[ tsa_config ]',
      `dir = ${dir}`,
      `serial = ${join(dir, 'serial')}`,
      `signer_cert = ${tsaCert}`,
      `signer_key = ${tsaKey}`,
      `certs = ${tsaCert}`,
      'signer_digest = sha256',
      'default_policy = 1.2.3.4.1',
      'digests = sha256',
      'accuracy = secs:1',
      'ordering = no',
      'tsa_name = no',
      'ess_cert_id_chain = no',
      'ess_cert_id_alg = sha256',
      '',
    ].join('\n'),
  );
  let n = 0;
  const cms = (data: Uint8Array): Buffer => {
    const input = join(dir, `data${++n}`);
    const output = join(dir, `sig${n}.der`);
    writeFileSync(input, data);
    execFileSync(
      'openssl',
      [
        'cms',
        '-sign',
        '-binary',
        '-in',
        input,
        '-signer',
        cert,
        '-inkey',
        key,
        '-outform',
        'DER',
        '-nosmimecap',
        '-md',
        'sha256',
        '-out',
        output,
      ],
      { stdio: 'ignore' },
    );
    return readFileSync(output);
  };
  const timestampToken = (data: Uint8Array): Buffer => {
    const input = join(dir, `tsdata${++n}`);
    writeFileSync(input, data);
    execFileSync('openssl', ['ts', '-query', '-data', input, '-sha256', '-cert', '-no_nonce', '-out', `${input}.tsq`], {
      stdio: 'ignore',
    });
    execFileSync(
      'openssl',
      [
        'ts',
        '-reply',
        '-config',
        join(dir, 'ts.cnf'),
        '-queryfile',
        `${input}.tsq`,
        '-token_out',
        '-out',
        `${input}.tst`,
      ],
      { stdio: 'ignore' },
    );
    return readFileSync(`${input}.tst`);
  };
  return {
    dir,
    cms,
    timestampToken,
    certDer: Buffer.from(readFileSync(cert, 'latin1').replace(/-----[^-]+-----|\s/g, ''), 'base64'),
    callback: () => async (_digest, prepared) => cms(byteRangeData(prepared)),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export interface PdfsigSignature {
  readonly field: string;
  readonly validation: string;
  readonly subFilter: string;
  readonly totalDocument: boolean;
}

/** pdfsig's view of every signature: field name, "Signature Validation:" text, whole-document flag. */
export function pdfsig(pdf: Uint8Array): { status: number | null; signatures: PdfsigSignature[]; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'mohar-pdfsig-'));
  try {
    const file = join(dir, 'in.pdf');
    writeFileSync(file, pdf);
    const r = spawnSync('pdfsig', ['-nocert', file], { encoding: 'utf8' });
    const output = r.stdout + r.stderr;
    const signatures: PdfsigSignature[] = [];
    for (const block of output.split(/^Signature #\d+:$/m).slice(1)) {
      signatures.push({
        field: /Signature Field Name: (.*)$/m.exec(block)?.[1]?.trim() ?? '',
        validation: /Signature Validation: (.*)$/m.exec(block)?.[1]?.trim() ?? '',
        subFilter: /Signature Type: (.*)$/m.exec(block)?.[1]?.trim() ?? '',
        totalDocument: /Total document signed/.test(block) && !/not total document signed/i.test(block),
      });
    }
    return { status: r.status, signatures, output };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

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

/** A PNG (8-bit RGBA, filter 0 on every row) from a pixel function. */
export function makePng(
  width: number,
  height: number,
  pixel: (x: number, y: number) => [number, number, number, number],
): Buffer {
  const raw = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (width * 4 + 1)] = 0;
    for (let x = 0; x < width; x++) {
      const p = pixel(x, y);
      raw.set(p, y * (width * 4 + 1) + 1 + x * 4);
    }
  }
  const chunk = (type: string, data: Buffer): Buffer => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(td));
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 6;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function crc32(b: Buffer): number {
  let c = ~0;
  for (const byte of b) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
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

/** True when qpdf, pdfsig, pdftoppm and openssl are all installed (the signing tests need them). */
export function signingToolsAvailable(): boolean {
  const ok = (cmd: string, args: string[]): boolean => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
  return ok('qpdf', ['--version']) && ok('pdfsig', ['-v']) && ok('pdftoppm', ['-v']) && ok('openssl', ['version']);
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
