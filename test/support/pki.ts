/**
 * A throw-away test PKI, made per test run with the `openssl` command (OpenSSL 3.0+) in a temp dir.
 * Real certificates, real keys, nothing mocked. Reusable by any test (native/, pdf/ signing, TSA and
 * OCSP responders, LTV).
 *
 *   const pki = createTestPki();                 // root CA -> intermediate CA, both RSA-2048 software keys
 *   pki.root / pki.intermediate                  // { certPath, keyPath, certPem, certDer, subject, serialHex }
 *   pki.chainDer                                 // [intermediate DER, root DER] (what a signer sends as its chain)
 *
 *   pki.issueSigner({ publicKey, commonName, email?, policies?, crlUrl?, ocspUrl?, caIssuersUrl? })
 *       End-entity certificate for a public key you already have (DER SubjectPublicKeyInfo bytes or PEM),
 *       e.g. a key generated ON a PKCS#11 token: `openssl x509 -new -force_pubkey`, no CSR needed.
 *       keyUsage critical digitalSignature + nonRepudiation; emailAddress in the subject and in the SAN;
 *       policies e.g. [CCA_CLASS_2_POLICY]; CRL distribution point / AIA OCSP / AIA caIssuers only when given.
 *   pki.issueSoftwareSigner({ commonName, keyType?, ... })   same profile, with a fresh software key (PEM/DER).
 *   pki.issueTsa({ commonName?, keyType? })       TSA certificate: extendedKeyUsage critical timeStamping.
 *   pki.issueOcspResponder({ keyType? })          OCSP responder: extendedKeyUsage OCSPSigning + id-pkix-ocsp-nocheck.
 *   pki.issueExpired({ commonName, keyType? })    signer profile, validity 2020-01-01 .. 2021-01-01 (software key,
 *                                                 so it can also be imported onto a token with pkcs11-tool).
 *   pki.revoke(cert, reason?) / pki.createCrl()   CRL of the intermediate CA (`openssl ca -gencrl`).
 *   pki.indexPath                                 every issued certificate is registered (V/R) in this
 *                                                 `openssl ca` database: `openssl ocsp -index pki.indexPath
 *                                                 -CA pki.intermediate.certPath -rsigner ... -rkey ...` works.
 *   pki.cleanup()                                 removes the temp dir.
 *
 * All issued end-entity certificates are signed by the intermediate CA with SHA-256. Every certificate comes
 * back as { certPath, certPem, certDer, serialHex, subject }; software keys add { keyPath, keyPem, keyDer (PKCS#8) }.
 * Everything is synchronous (execFileSync); one createTestPki() costs ~0.2 s.
 */
import { execFileSync } from 'node:child_process';
import { createPublicKey, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** CCA India certificate policy OIDs (India PKI CP): the class is the last arc under 2.16.356.100.2. */
export const CCA_CLASS_1_POLICY = '2.16.356.100.2.1';
export const CCA_CLASS_2_POLICY = '2.16.356.100.2.2';
export const CCA_CLASS_3_POLICY = '2.16.356.100.2.3';

export type KeyType = 'rsa' | 'ec';

export interface IssuedCertificate {
  readonly certPath: string;
  readonly certPem: string;
  readonly certDer: Uint8Array;
  /** Serial number as lower-case hex (the certificate's serialNumber INTEGER bytes). */
  readonly serialHex: string;
  /** The subject as given to `openssl -subj`, e.g. "/C=IN/O=Mohar Test/CN=Asha Rao/emailAddress=asha@example.com". */
  readonly subject: string;
}

export interface SoftwareCredential extends IssuedCertificate {
  readonly keyPath: string;
  readonly keyPem: string;
  /** PKCS#8 DER of the private key (pkcs11-tool --write-object --type privkey accepts it). */
  readonly keyDer: Uint8Array;
}

export type CaCertificate = SoftwareCredential;

export interface SubjectOptions {
  commonName: string;
  /** Put into the subject (emailAddress) and the subjectAltName (rfc822Name). */
  email?: string;
  /** False: the e-mail goes into the subjectAltName only (default true: subject and SAN). */
  emailInSubject?: boolean;
  organization?: string;
  /** Two-letter country code; default IN. */
  country?: string;
}

export interface SignerProfileOptions extends SubjectOptions {
  /** Certificate policy OIDs, e.g. [CCA_CLASS_2_POLICY]. None by default. */
  policies?: readonly string[];
  /** CRL distribution point URL (only added when given). */
  crlUrl?: string;
  /** AIA OCSP responder URL (only added when given). */
  ocspUrl?: string;
  /** AIA caIssuers URL (only added when given). */
  caIssuersUrl?: string;
  /** Validity in days from now; default 365. */
  days?: number;
  /** keyUsage bits (openssl names); default "digitalSignature, nonRepudiation". */
  keyUsage?: string;
}

export interface SignerOptions extends SignerProfileOptions {
  /** The subject's public key: DER SubjectPublicKeyInfo bytes, or PEM text ("-----BEGIN PUBLIC KEY-----"). */
  publicKey: Uint8Array | string;
}

export interface SoftwareSignerOptions extends SignerProfileOptions {
  keyType?: KeyType;
}

export interface ServiceCertificateOptions {
  commonName?: string;
  keyType?: KeyType;
  crlUrl?: string;
  ocspUrl?: string;
  days?: number;
}

export interface ExpiredOptions extends SubjectOptions {
  keyType?: KeyType;
  /** Default 2020-01-01T00:00:00Z. */
  notBefore?: Date;
  /** Default 2021-01-01T00:00:00Z. Must be in the past for an expired certificate. */
  notAfter?: Date;
  policies?: readonly string[];
}

export type RevocationReason =
  | 'unspecified'
  | 'keyCompromise'
  | 'CACompromise'
  | 'affiliationChanged'
  | 'superseded'
  | 'cessationOfOperation'
  | 'certificateHold';

export interface Crl {
  readonly crlPath: string;
  readonly crlPem: string;
  readonly crlDer: Uint8Array;
}

export interface TestPki {
  /** The temp dir holding every file (keys, certificates, openssl ca database). */
  readonly dir: string;
  readonly root: CaCertificate;
  readonly intermediate: CaCertificate;
  /** [intermediate, root] DER: the chain above any end-entity certificate issued here. */
  readonly chainDer: readonly Uint8Array[];
  /** `openssl ca` database (index.txt) listing every certificate issued by the intermediate. */
  readonly indexPath: string;
  /** `openssl ca` configuration for the intermediate CA (for `openssl ca -config`). */
  readonly caConfigPath: string;
  issueSigner(options: SignerOptions): IssuedCertificate;
  issueSoftwareSigner(options: SoftwareSignerOptions): SoftwareCredential;
  issueTsa(options?: ServiceCertificateOptions): SoftwareCredential;
  issueOcspResponder(options?: ServiceCertificateOptions): SoftwareCredential;
  issueExpired(options: ExpiredOptions): SoftwareCredential;
  revoke(certificate: IssuedCertificate, reason?: RevocationReason): void;
  /** A fresh CRL of the intermediate CA covering every revoke() so far. */
  createCrl(options?: { days?: number }): Crl;
  cleanup(): void;
}

export interface TestPkiOptions {
  /** Prefix of CA names, default "Mohar Test". */
  name?: string;
  /** Parent of the temp dir; default os.tmpdir(). */
  baseDir?: string;
}

function openssl(args: readonly string[], cwd?: string): string {
  try {
    return execFileSync('openssl', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(`openssl ${args.join(' ')} failed: ${stderr || String(error)}`);
  }
}

function pemToDer(pem: string): Uint8Array {
  const body = pem.replace(/-----(BEGIN|END) [^-]+-----/g, '').replace(/\s+/g, '');
  return new Uint8Array(Buffer.from(body, 'base64'));
}

function escapeRdn(value: string): string {
  if (/[\r\n]/.test(value)) throw new Error(`subject value must not contain line breaks: ${JSON.stringify(value)}`);
  return value.replace(/[\\/+=]/g, (c) => `\\${c}`);
}

/** Country first, as CCA-issued DSCs encode it: /C=IN/O=.../CN=...[/emailAddress=...]. */
function subjectOf(options: SubjectOptions): string {
  let s = `/C=${escapeRdn(options.country ?? 'IN')}/O=${escapeRdn(options.organization ?? 'Mohar Test')}/CN=${escapeRdn(options.commonName)}`;
  if (options.email && options.emailInSubject !== false) s += `/emailAddress=${escapeRdn(options.email)}`;
  return s;
}

function checkUrl(url: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\/[^\s,]+$/i.test(url)) {
    throw new Error(`not a usable URL for a certificate extension: ${url}`);
  }
  return url;
}

function checkOid(oid: string): string {
  if (!/^[0-2](\.\d+)+$/.test(oid)) throw new Error(`not an OID: ${oid}`);
  return oid;
}

function newSerial(): string {
  // 16 random bytes, top bit cleared so the INTEGER stays positive without padding.
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x7f) | 0x10;
  return bytes.toString('hex');
}

function opensslTime(date: Date): string {
  const iso = date.toISOString(); // 2020-01-01T00:00:00.000Z
  return `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
}

function signerExtensions(options: SignerProfileOptions): string[] {
  const lines = [
    'basicConstraints = critical, CA:FALSE',
    `keyUsage = critical, ${options.keyUsage ?? 'digitalSignature, nonRepudiation'}`,
    'subjectKeyIdentifier = hash',
    'authorityKeyIdentifier = keyid:always',
  ];
  if (options.email) lines.push(`subjectAltName = email:${options.email.replace(/[,\s]/g, '')}`);
  if (options.policies && options.policies.length > 0) {
    lines.push(`certificatePolicies = ${options.policies.map(checkOid).join(', ')}`);
  }
  lines.push(...revocationExtensions(options));
  return lines;
}

function revocationExtensions(options: { crlUrl?: string; ocspUrl?: string; caIssuersUrl?: string }): string[] {
  const lines: string[] = [];
  if (options.crlUrl) lines.push(`crlDistributionPoints = URI:${checkUrl(options.crlUrl)}`);
  const aia: string[] = [];
  if (options.ocspUrl) aia.push(`OCSP;URI:${checkUrl(options.ocspUrl)}`);
  if (options.caIssuersUrl) aia.push(`caIssuers;URI:${checkUrl(options.caIssuersUrl)}`);
  if (aia.length > 0) lines.push(`authorityInfoAccess = ${aia.join(', ')}`);
  return lines;
}

/**
 * Creates the root and intermediate CAs in a new temp dir. Call cleanup() when done (an `after` hook).
 */
export function createTestPki(options: TestPkiOptions = {}): TestPki {
  const dir = mkdtempSync(join(options.baseDir ?? tmpdir(), 'mohar-pki-'));
  try {
    return buildTestPki(dir, options.name ?? 'Mohar Test');
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

function buildTestPki(dir: string, name: string): TestPki {
  let counter = 0;
  const fileBase = (label: string): string =>
    join(dir, `${String(++counter).padStart(3, '0')}-${label.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 40)}`);

  const generateKey = (path: string, keyType: KeyType): { keyPem: string; keyDer: Uint8Array } => {
    if (keyType === 'rsa') openssl(['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', path]);
    else {
      openssl([
        'genpkey',
        '-algorithm',
        'EC',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-pkeyopt',
        'ec_param_enc:named_curve',
        '-out',
        path,
      ]);
    }
    const keyPem = readFileSync(path, 'utf8');
    return { keyPem, keyDer: pemToDer(keyPem) };
  };

  const publicKeyFileOf = (privateKeyPem: string, path: string): string => {
    writeFileSync(path, createPublicKey(privateKeyPem).export({ type: 'spki', format: 'pem' }).toString());
    return path;
  };

  const readCert = (certPath: string, serialHex: string, subject: string): IssuedCertificate => {
    const certPem = readFileSync(certPath, 'utf8');
    return { certPath, certPem, certDer: pemToDer(certPem), serialHex, subject };
  };

  const writeExt = (base: string, section: string, lines: readonly string[]): string => {
    const path = `${base}.ext.cnf`;
    writeFileSync(path, `[${section}]\n${lines.join('\n')}\n`);
    return path;
  };

  // --- root CA (self-signed)
  const caExtLines = (pathLen: number | undefined): string[] => [
    `basicConstraints = critical, CA:TRUE${pathLen === undefined ? '' : `, pathlen:${pathLen}`}`,
    'keyUsage = critical, keyCertSign, cRLSign',
    'subjectKeyIdentifier = hash',
    'authorityKeyIdentifier = keyid:always',
  ];
  const rootBase = join(dir, 'root');
  const rootKey = generateKey(`${rootBase}.key.pem`, 'rsa');
  const rootSubject = `/C=IN/O=${escapeRdn(name)}/CN=${escapeRdn(`${name} Root CA`)}`;
  const rootSerial = newSerial();
  openssl([
    'req',
    '-x509',
    '-new',
    '-key',
    `${rootBase}.key.pem`,
    '-subj',
    rootSubject,
    '-days',
    '3650',
    '-sha256',
    '-set_serial',
    `0x${rootSerial}`,
    '-config',
    writeExt(rootBase, 'req', [
      'distinguished_name = dn',
      'x509_extensions = v3_ca',
      '[dn]',
      '[v3_ca]',
      ...caExtLines(undefined),
    ]),
    '-out',
    `${rootBase}.cert.pem`,
  ]);
  const root: CaCertificate = {
    ...readCert(`${rootBase}.cert.pem`, rootSerial, rootSubject),
    keyPath: `${rootBase}.key.pem`,
    ...rootKey,
  };

  // --- intermediate CA (signed by root)
  const interBase = join(dir, 'intermediate');
  const interKey = generateKey(`${interBase}.key.pem`, 'rsa');
  const interSubject = `/C=IN/O=${escapeRdn(name)}/CN=${escapeRdn(`${name} Intermediate CA`)}`;
  const interSerial = newSerial();
  openssl([
    'x509',
    '-new',
    '-force_pubkey',
    publicKeyFileOf(interKey.keyPem, `${interBase}.pub.pem`),
    '-subj',
    interSubject,
    '-CA',
    root.certPath,
    '-CAkey',
    root.keyPath,
    '-set_serial',
    `0x${interSerial}`,
    '-days',
    '3650',
    '-sha256',
    '-extfile',
    writeExt(interBase, 'v3_intermediate', caExtLines(0)),
    '-extensions',
    'v3_intermediate',
    '-out',
    `${interBase}.cert.pem`,
  ]);
  const intermediate: CaCertificate = {
    ...readCert(`${interBase}.cert.pem`, interSerial, interSubject),
    keyPath: `${interBase}.key.pem`,
    ...interKey,
  };

  // --- openssl ca database for the intermediate (index for OCSP responders, CRLs, expired certs)
  const caDir = join(dir, 'ca');
  mkdirSync(join(caDir, 'newcerts'), { recursive: true });
  const indexPath = join(caDir, 'index.txt');
  writeFileSync(indexPath, '');
  writeFileSync(join(caDir, 'index.txt.attr'), 'unique_subject = no\n');
  writeFileSync(join(caDir, 'serial'), `${newSerial()}\n`);
  writeFileSync(join(caDir, 'crlnumber'), '1000\n');
  const caConfigPath = join(caDir, 'ca.cnf');
  writeFileSync(
    caConfigPath,
    [
      '[ca]',
      'default_ca = intermediate',
      '',
      '[intermediate]',
      `dir = ${caDir}`,
      'database = $dir/index.txt',
      'new_certs_dir = $dir/newcerts',
      'serial = $dir/serial',
      'crlnumber = $dir/crlnumber',
      `certificate = ${intermediate.certPath}`,
      `private_key = ${intermediate.keyPath}`,
      'default_md = sha256',
      'default_days = 365',
      'default_crl_days = 7',
      'policy = policy_any',
      'unique_subject = no',
      'copy_extensions = none',
      'preserve = yes',
      'email_in_dn = yes',
      'crl_extensions = crl_ext',
      '',
      '[policy_any]',
      'commonName = supplied',
      'emailAddress = optional',
      'organizationName = optional',
      'countryName = optional',
      '',
      '[crl_ext]',
      'authorityKeyIdentifier = keyid:always',
      '',
    ].join('\n'),
  );
  const register = (certPath: string): void => {
    openssl(['ca', '-config', caConfigPath, '-valid', certPath]);
  };

  const issueForKey = (
    publicKeyPath: string,
    subject: string,
    extLines: readonly string[],
    days: number,
    label: string,
  ): IssuedCertificate => {
    const base = fileBase(label);
    const serialHex = newSerial();
    openssl([
      'x509',
      '-new',
      '-force_pubkey',
      publicKeyPath,
      '-subj',
      subject,
      '-CA',
      intermediate.certPath,
      '-CAkey',
      intermediate.keyPath,
      '-set_serial',
      `0x${serialHex}`,
      '-days',
      String(days),
      '-sha256',
      '-extfile',
      writeExt(base, 'ee', extLines),
      '-extensions',
      'ee',
      '-out',
      `${base}.cert.pem`,
    ]);
    register(`${base}.cert.pem`);
    return readCert(`${base}.cert.pem`, serialHex, subject);
  };

  const issueSoftware = (
    keyType: KeyType,
    subject: string,
    extLines: readonly string[],
    days: number,
    label: string,
  ): SoftwareCredential => {
    const keyPath = `${fileBase(label)}.key.pem`;
    const key = generateKey(keyPath, keyType);
    return {
      ...issueForKey(
        publicKeyFileOf(key.keyPem, keyPath.replace(/\.key\.pem$/, '.pub.pem')),
        subject,
        extLines,
        days,
        label,
      ),
      keyPath,
      ...key,
    };
  };

  const pki: TestPki = {
    dir,
    root,
    intermediate,
    chainDer: [intermediate.certDer, root.certDer],
    indexPath,
    caConfigPath,

    issueSigner(opts) {
      const base = fileBase(`${opts.commonName}-pub`);
      const spkiPem =
        typeof opts.publicKey === 'string'
          ? createPublicKey(opts.publicKey).export({ type: 'spki', format: 'pem' }).toString()
          : createPublicKey({ key: Buffer.from(opts.publicKey), format: 'der', type: 'spki' })
              .export({ type: 'spki', format: 'pem' })
              .toString();
      writeFileSync(`${base}.pub.pem`, spkiPem);
      return issueForKey(`${base}.pub.pem`, subjectOf(opts), signerExtensions(opts), opts.days ?? 365, opts.commonName);
    },

    issueSoftwareSigner(opts) {
      return issueSoftware(
        opts.keyType ?? 'rsa',
        subjectOf(opts),
        signerExtensions(opts),
        opts.days ?? 365,
        opts.commonName,
      );
    },

    issueTsa(opts = {}) {
      const lines = [
        'basicConstraints = critical, CA:FALSE',
        'keyUsage = critical, digitalSignature, nonRepudiation',
        'extendedKeyUsage = critical, timeStamping',
        'subjectKeyIdentifier = hash',
        'authorityKeyIdentifier = keyid:always',
        ...revocationExtensions(opts),
      ];
      const commonName = opts.commonName ?? `${name} TSA`;
      return issueSoftware(opts.keyType ?? 'rsa', subjectOf({ commonName }), lines, opts.days ?? 365, commonName);
    },

    issueOcspResponder(opts = {}) {
      const lines = [
        'basicConstraints = critical, CA:FALSE',
        'keyUsage = critical, digitalSignature',
        'extendedKeyUsage = OCSPSigning',
        'subjectKeyIdentifier = hash',
        'authorityKeyIdentifier = keyid:always',
        // id-pkix-ocsp-nocheck: clients need not check the responder certificate's own status.
        '1.3.6.1.5.5.7.48.1.5 = ASN1:NULL',
        ...revocationExtensions(opts),
      ];
      const commonName = opts.commonName ?? `${name} OCSP Responder`;
      return issueSoftware(opts.keyType ?? 'rsa', subjectOf({ commonName }), lines, opts.days ?? 365, commonName);
    },

    issueExpired(opts) {
      // `openssl x509 -new` (3.0) cannot set notBefore; `openssl ca` can, from a CSR, hence a software key.
      const base = fileBase(`${opts.commonName}-expired`);
      const keyPath = `${base}.key.pem`;
      const key = generateKey(keyPath, opts.keyType ?? 'rsa');
      const subject = subjectOf(opts);
      openssl([
        'req',
        '-new',
        '-key',
        keyPath,
        '-subj',
        subject,
        '-out',
        `${base}.csr.pem`,
        '-config',
        writeExt(base, 'req', ['distinguished_name = dn', '[dn]']),
      ]);
      const notBefore = opts.notBefore ?? new Date('2020-01-01T00:00:00Z');
      const notAfter = opts.notAfter ?? new Date('2021-01-01T00:00:00Z');
      openssl([
        'ca',
        '-config',
        caConfigPath,
        '-batch',
        '-notext',
        '-in',
        `${base}.csr.pem`,
        '-out',
        `${base}.cert.pem`,
        '-startdate',
        opensslTime(notBefore),
        '-enddate',
        opensslTime(notAfter),
        '-extfile',
        writeExt(`${base}-ca`, 'ee', signerExtensions(opts)),
        '-extensions',
        'ee',
      ]);
      const serialHex = openssl(['x509', '-in', `${base}.cert.pem`, '-noout', '-serial'])
        .trim()
        .replace(/^serial=/, '')
        .toLowerCase();
      return { ...readCert(`${base}.cert.pem`, serialHex, subject), keyPath, ...key };
    },

    revoke(certificate, reason = 'unspecified') {
      openssl(['ca', '-config', caConfigPath, '-revoke', certificate.certPath, '-crl_reason', reason]);
    },

    createCrl(opts = {}) {
      const crlPath = fileBase('crl') + '.crl.pem';
      openssl(['ca', '-config', caConfigPath, '-gencrl', '-crldays', String(opts.days ?? 7), '-out', crlPath]);
      const crlPem = readFileSync(crlPath, 'utf8');
      return { crlPath, crlPem, crlDer: pemToDer(crlPem) };
    },

    cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return pki;
}
