/**
 * Signing without pdf/cms, for any suite: a throw-away self-signed RSA certificate made with openssl,
 * detached CMS made with `openssl cms -sign`, a throw-away TSA (openssl ts), and poppler's pdfsig report.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PreparedSignature } from '../../pdf/index.js';
import { byteRangeData } from '../../pdf/sign/prepare.js';

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

/** True when qpdf, pdfsig, pdftoppm and openssl are all installed (the signing tests need them). */
export function signingToolsAvailable(): boolean {
  const ok = (cmd: string, args: string[]): boolean => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
  return ok('qpdf', ['--version']) && ok('pdfsig', ['-v']) && ok('pdftoppm', ['-v']) && ok('openssl', ['version']);
}
