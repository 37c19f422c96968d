/**
 * A small PKI made with openssl for the pdf/cms tests, with its revocation services running on
 * loopback:
 *
 * root (RSA, self-signed)                         — served at rootServer: /root.cer, CRL, OCSP (signed by the root
 * itself)
 *   └─ intermediate (RSA; AIA OCSP + caIssuers + CRL DP → rootServer)
 *      ├─ rsaSigner, ecSigner (P-256), revokedSigner (P-256; revoked), unknownSigner (P-256; not in the index)
 *      │      AIA OCSP + caIssuers + CRL DP → intServer
 *      ├─ tsa (P-256, critical EKU timeStamping; CRL DP + caIssuers only, no OCSP)
 *      └─ ocspResponder (P-256, EKU OCSPSigning, ocsp-nocheck): signs intServer's OCSP answers
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startOcspResponder, type OcspResponder } from './ocsp.js';
import { openssl } from './tsa.js';

export interface TestCert {
  readonly name: string;
  readonly certPem: string;
  readonly keyPem: string;
  readonly der: Uint8Array;
  readonly certPath: string;
  readonly keyPath: string;
}

export interface TestPki {
  readonly dir: string;
  readonly root: TestCert;
  readonly intermediate: TestCert;
  readonly rsaSigner: TestCert;
  readonly ecSigner: TestCert;
  readonly revokedSigner: TestCert;
  /** Issued by the intermediate but missing from its index: OCSP answers "unknown", the CRL does not list it. */
  readonly unknownSigner: TestCert;
  readonly tsa: TestCert;
  readonly ocspResponder: TestCert;
  readonly rootServer: OcspResponder;
  readonly intServer: OcspResponder;
  /** Path of a PEM file holding the root (for -CAfile). */
  readonly rootPath: string;
  close(): Promise<void>;
}

type KeySpec = 'rsa' | 'ec';

async function issue(
  dir: string,
  name: string,
  cn: string,
  key: KeySpec,
  extensions: readonly string[],
  issuer?: TestCert,
): Promise<TestCert> {
  const certPath = join(dir, `${name}.pem`);
  const keyPath = join(dir, `${name}.key`);
  const cnf = join(dir, `${name}.cnf`);
  writeFileSync(
    cnf,
    [
      '[ req ]',
      'distinguished_name = dn',
      'prompt = no',
      'x509_extensions = ext',
      '[ dn ]',
      'O = Mohar Test PKI',
      `CN = ${cn}`,
      '[ ext ]',
      ...extensions,
      '',
    ].join('\n'),
  );
  const keyArgs = key === 'rsa' ? ['-newkey', 'rsa:2048'] : ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'];
  const serial = '0x' + (randomBytes(9)[0]! & 0x7f).toString(16).padStart(2, '0') + randomBytes(8).toString('hex');
  await openssl([
    'req',
    '-x509',
    '-new',
    '-config',
    cnf,
    ...keyArgs,
    '-nodes',
    '-keyout',
    keyPath,
    '-out',
    certPath,
    '-days',
    '30',
    '-set_serial',
    serial,
    '-sha256',
    ...(issuer ? ['-CA', issuer.certPath, '-CAkey', issuer.keyPath] : []),
  ]);
  const certPem = readFileSync(certPath, 'utf8');
  const der = new Uint8Array(Buffer.from(certPem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64'));
  return { name, certPem, keyPem: readFileSync(keyPath, 'utf8'), der, certPath, keyPath };
}

const CA_EXT = ['keyUsage = critical, keyCertSign, cRLSign', 'subjectKeyIdentifier = hash'];

export async function createTestPki(): Promise<TestPki> {
  const dir = mkdtempSync(join(tmpdir(), 'mohar-cms-pki-'));
  const root = await issue(dir, 'root', 'Mohar Test Root', 'rsa', ['basicConstraints = critical, CA:true', ...CA_EXT]);
  const rootServer = await startOcspResponder({
    caCert: root.certPem,
    caKey: root.keyPem,
    responderCert: root.certPem,
    responderKey: root.keyPem,
  });
  const rootCer = rootServer.serve('/root.cer', root.der);
  const intermediate = await issue(
    dir,
    'intermediate',
    'Mohar Test Issuing CA',
    'rsa',
    [
      'basicConstraints = critical, CA:true, pathlen:0',
      ...CA_EXT,
      'authorityKeyIdentifier = keyid:always',
      `authorityInfoAccess = OCSP;URI:${rootServer.url}, caIssuers;URI:${rootCer}`,
      `crlDistributionPoints = URI:${rootServer.crlUrl}`,
    ],
    root,
  );
  rootServer.register(intermediate.certPem);

  const ocspResponder = await issue(
    dir,
    'ocsp',
    'Mohar Test OCSP Responder',
    'ec',
    [
      'basicConstraints = critical, CA:false',
      'keyUsage = critical, digitalSignature',
      'extendedKeyUsage = OCSPSigning',
      'noCheck = ignored',
      'subjectKeyIdentifier = hash',
      'authorityKeyIdentifier = keyid:always',
    ],
    intermediate,
  );
  const intServer = await startOcspResponder({
    caCert: intermediate.certPem,
    caKey: intermediate.keyPem,
    responderCert: ocspResponder.certPem,
    responderKey: ocspResponder.keyPem,
  });
  const intCer = intServer.serve('/intermediate.cer', intermediate.der);

  const leafExt = (extra: readonly string[]): string[] => [
    'basicConstraints = critical, CA:false',
    'subjectKeyIdentifier = hash',
    'authorityKeyIdentifier = keyid:always',
    `crlDistributionPoints = URI:${intServer.crlUrl}`,
    ...extra,
  ];
  const signerExt = leafExt([
    'keyUsage = critical, digitalSignature, nonRepudiation',
    `authorityInfoAccess = OCSP;URI:${intServer.url}, caIssuers;URI:${intCer}`,
  ]);
  const [rsaSigner, ecSigner, revokedSigner, unknownSigner, tsa] = await Promise.all([
    issue(dir, 'rsa-signer', 'Asha Rao (RSA)', 'rsa', signerExt, intermediate),
    issue(dir, 'ec-signer', 'Vikram Iyer (P-256)', 'ec', signerExt, intermediate),
    issue(dir, 'revoked-signer', 'Revoked Signer', 'ec', signerExt, intermediate),
    issue(dir, 'unknown-signer', 'Unregistered Signer', 'ec', signerExt, intermediate),
    issue(
      dir,
      'tsa',
      'Mohar Test TSA',
      'ec',
      leafExt([
        'keyUsage = critical, digitalSignature',
        'extendedKeyUsage = critical, timeStamping',
        `authorityInfoAccess = caIssuers;URI:${intCer}`,
      ]),
      intermediate,
    ),
  ]);
  for (const c of [rsaSigner, ecSigner, revokedSigner, tsa, ocspResponder]) intServer.register(c.certPem);
  intServer.revoke(revokedSigner.certPem, { reason: 'keyCompromise' });

  return {
    dir,
    root,
    intermediate,
    rsaSigner,
    ecSigner,
    revokedSigner,
    unknownSigner,
    tsa,
    ocspResponder,
    rootServer,
    intServer,
    rootPath: root.certPath,
    async close() {
      await Promise.all([rootServer.close(), intServer.close()]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
