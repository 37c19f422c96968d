/**
 * The simulator's CCA-like test PKI: a root ("Simulated CCA Root") → an ESP CA → one-hour signer
 * certificates issued per signature, plus the ESP's XML response-signing certificate (what an ASP pins).
 * Nothing here is trusted by anything unless an operator adds the root to the trust anchors on purpose.
 *
 * Signer certificates follow the shape of the ESPs' e-KYC certificates: CN is the name as in e-KYC, C=IN,
 * ST and postalCode from the address, pseudonym a per-signature reference, serialNumber the SHA-256 (hex)
 * of the Aadhaar number (never the number), year of birth and gender in subjectDirectoryAttributes
 * (RFC 3739 dateOfBirth, gender), the CCA e-KYC OTP policy, keyUsage digitalSignature + nonRepudiation.
 */
import { createHash, createPrivateKey, randomBytes, webcrypto, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

type EngineCrypto = ConstructorParameters<typeof pkijs.CryptoEngine>[0]['crypto'];
const engine = new pkijs.CryptoEngine({ name: 'node-webcrypto', crypto: webcrypto as unknown as EngineCrypto });
const RSA = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } as const;

/** CCA India policy for certificates issued on Aadhaar e-KYC with OTP (2.16.356.100.2.4.1). */
export const CCA_EKYC_OTP_POLICY = '2.16.356.100.2.4.1';

const OID = {
  C: '2.5.4.6',
  ST: '2.5.4.8',
  O: '2.5.4.10',
  OU: '2.5.4.11',
  CN: '2.5.4.3',
  postalCode: '2.5.4.17',
  serialNumber: '2.5.4.5',
  pseudonym: '2.5.4.65',
  dateOfBirth: '1.3.6.1.5.5.7.9.1',
  gender: '1.3.6.1.5.5.7.9.3',
} as const;

export interface Credential {
  readonly certDer: Uint8Array;
  readonly certPem: string;
  readonly privateKey: webcrypto.CryptoKey;
  /** The same key for node:crypto (PKCS#8). */
  readonly keyObject: KeyObject;
  readonly keyPem: string;
}

export interface SimulatorPki {
  readonly root: Credential;
  readonly espCa: Credential;
  /** Signs EsignResp XML: the certificate an ASP pins (MOHAR_ESIGN_ESP_CERT). */
  readonly responseSigner: Credential;
}

export interface SignerIdentity {
  readonly name: string;
  readonly yearOfBirth: number;
  readonly gender: 'M' | 'F' | 'T';
  readonly state: string;
  readonly postalCode: string;
  readonly aadhaar: string;
}

function buf(bytes: Uint8Array): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

function pem(label: string, der: Uint8Array): string {
  return `-----BEGIN ${label}-----\n${Buffer.from(der)
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .trimEnd()}\n-----END ${label}-----\n`;
}

/** One RDN per attribute; countryName and serialNumber are PrintableString (RFC 5280), the rest UTF8String. */
function distinguishedName(attributes: readonly (readonly [string, string])[]): pkijs.RelativeDistinguishedNames {
  const rdn = ([type, value]: readonly [string, string]): asn1js.Set => {
    const printable = type === OID.C || type === OID.serialNumber || type === OID.postalCode;
    const encoded = printable ? new asn1js.PrintableString({ value }) : new asn1js.Utf8String({ value });
    return new asn1js.Set({ value: [new pkijs.AttributeTypeAndValue({ type, value: encoded }).toSchema()] });
  };
  return pkijs.RelativeDistinguishedNames.fromBER(new asn1js.Sequence({ value: attributes.map(rdn) }).toBER(false));
}

function extension(extnID: string, critical: boolean, value: asn1js.AsnType): pkijs.Extension {
  return new pkijs.Extension({ extnID, critical, extnValue: value.toBER(false) });
}

function keyUsage(...bits: number[]): asn1js.BitString {
  const value = bits.reduce((v, bit) => v | (0x80 >> bit), 0);
  return new asn1js.BitString({ valueHex: new Uint8Array([value]).buffer, unusedBits: 7 - Math.max(...bits) });
}

interface IssueSpec {
  readonly subject: pkijs.RelativeDistinguishedNames;
  readonly issuer?: Credential;
  readonly issuerName?: pkijs.RelativeDistinguishedNames;
  readonly notBefore: Date;
  readonly notAfter: Date;
  readonly ca: { pathLen?: number } | false;
  readonly policies?: readonly string[];
  readonly extra?: readonly pkijs.Extension[];
}

async function issue(spec: IssueSpec): Promise<Credential> {
  const keys = await webcrypto.subtle.generateKey(
    { ...RSA, modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) },
    true,
    ['sign', 'verify'],
  );
  const cert = new pkijs.Certificate();
  cert.version = 2;
  const serial = randomBytes(16);
  serial[0] = (serial[0]! & 0x7f) | 0x40;
  cert.serialNumber = new asn1js.Integer({ valueHex: buf(serial) });
  cert.subject = spec.subject;
  cert.issuer = spec.issuer
    ? pkijs.Certificate.fromBER(buf(spec.issuer.certDer)).subject
    : (spec.issuerName ?? spec.subject);
  cert.notBefore = new pkijs.Time({ type: pkijs.TimeType.UTCTime, value: spec.notBefore });
  cert.notAfter = new pkijs.Time({
    type: spec.notAfter.getUTCFullYear() < 2050 ? pkijs.TimeType.UTCTime : pkijs.TimeType.GeneralizedTime,
    value: spec.notAfter,
  });
  await cert.subjectPublicKeyInfo.importKey(keys.publicKey, engine);
  const keyId = createHash('sha1').update(cert.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView).digest();
  const extensions = [
    extension(
      '2.5.29.19',
      true,
      new pkijs.BasicConstraints(
        spec.ca
          ? { cA: true, ...(spec.ca.pathLen === undefined ? {} : { pathLenConstraint: spec.ca.pathLen }) }
          : { cA: false },
      ).toSchema(),
    ),
    extension('2.5.29.15', true, spec.ca ? keyUsage(5, 6) : keyUsage(0, 1)),
    extension('2.5.29.14', false, new asn1js.OctetString({ valueHex: buf(keyId) })),
  ];
  if (spec.issuer) {
    const issuerKeyId = pkijs.Certificate.fromBER(buf(spec.issuer.certDer)).extensions?.find(
      (e) => e.extnID === '2.5.29.14',
    )?.parsedValue as asn1js.OctetString | undefined;
    if (issuerKeyId) {
      extensions.push(
        extension(
          '2.5.29.35',
          false,
          new pkijs.AuthorityKeyIdentifier({
            keyIdentifier: new asn1js.OctetString({ valueHex: issuerKeyId.valueBlock.valueHexView.slice().buffer }),
          }).toSchema(),
        ),
      );
    }
  }
  if (spec.policies?.length) {
    extensions.push(
      extension(
        '2.5.29.32',
        false,
        new asn1js.Sequence({
          value: spec.policies.map((p) => new pkijs.PolicyInformation({ policyIdentifier: p }).toSchema()),
        }),
      ),
    );
  }
  extensions.push(...(spec.extra ?? []));
  cert.extensions = extensions;
  await cert.sign(spec.issuer?.privateKey ?? keys.privateKey, 'SHA-256', engine);
  const certDer = new Uint8Array(cert.toSchema(true).toBER(false));
  const pkcs8 = new Uint8Array(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  return {
    certDer,
    certPem: pem('CERTIFICATE', certDer),
    privateKey: keys.privateKey,
    keyObject: createPrivateKey({ key: Buffer.from(pkcs8), format: 'der', type: 'pkcs8' }),
    keyPem: pem('PRIVATE KEY', pkcs8),
  };
}

const TEN_YEARS = 10 * 365 * 24 * 3600 * 1000;

/** A fresh test PKI: root (10 years), ESP CA (10 years), response-signing certificate (10 years). */
export async function createSimulatorPki(now = new Date()): Promise<SimulatorPki> {
  const notBefore = new Date(now.getTime() - 3600_000);
  const notAfter = new Date(now.getTime() + TEN_YEARS);
  const root = await issue({
    subject: distinguishedName([
      [OID.C, 'IN'],
      [OID.O, 'Mohar ESP Simulator'],
      [OID.CN, 'Simulated CCA Root (test only)'],
    ]),
    notBefore,
    notAfter,
    ca: { pathLen: 1 },
  });
  const espCa = await issue({
    subject: distinguishedName([
      [OID.C, 'IN'],
      [OID.O, 'Mohar ESP Simulator'],
      [OID.OU, 'Certifying Authority'],
      [OID.CN, 'Simulated eSign CA (test only)'],
    ]),
    issuer: root,
    notBefore,
    notAfter,
    ca: { pathLen: 0 },
    policies: [CCA_EKYC_OTP_POLICY],
  });
  const responseSigner = await issue({
    subject: distinguishedName([
      [OID.C, 'IN'],
      [OID.O, 'Mohar ESP Simulator'],
      [OID.CN, 'Simulated ESP response signing (test only)'],
    ]),
    issuer: espCa,
    notBefore,
    notAfter,
    ca: false,
  });
  return { root, espCa, responseSigner };
}

/**
 * A certificate for an ASP's request-signing key, from the simulated root (for the sandbox and tests: a real
 * ASP registers its own organisation certificate with its ESP).
 */
export async function issueAspCertificate(pki: SimulatorPki, aspId: string, now = new Date()): Promise<Credential> {
  return issue({
    subject: distinguishedName([
      [OID.C, 'IN'],
      [OID.O, 'Mohar ESP Simulator'],
      [OID.CN, `${aspId} ASP request signing (test only)`],
    ]),
    issuer: pki.root,
    notBefore: new Date(now.getTime() - 3600_000),
    notAfter: new Date(now.getTime() + TEN_YEARS),
    ca: false,
  });
}

/** subjectDirectoryAttributes (RFC 3739): dateOfBirth (1 January of the year: e-KYC gives the year) and gender. */
function directoryAttributes(identity: SignerIdentity): pkijs.Extension {
  const attribute = (type: string, value: asn1js.AsnType): asn1js.Sequence =>
    new asn1js.Sequence({ value: [new asn1js.ObjectIdentifier({ value: type }), new asn1js.Set({ value: [value] })] });
  const dob = new asn1js.GeneralizedTime({ valueDate: new Date(Date.UTC(identity.yearOfBirth, 0, 1, 12)) });
  return extension(
    '2.5.29.9',
    false,
    new asn1js.Sequence({
      value: [
        attribute(OID.dateOfBirth, dob),
        attribute(OID.gender, new asn1js.PrintableString({ value: identity.gender })),
      ],
    }),
  );
}

/** A one-hour signer certificate for one e-KYC'd person, from the ESP CA. */
export async function issueSignerCertificate(
  pki: SimulatorPki,
  identity: SignerIdentity,
  reference: string,
  now = new Date(),
): Promise<Credential> {
  const aadhaarHash = createHash('sha256').update(identity.aadhaar).digest('hex');
  return issue({
    subject: distinguishedName([
      [OID.C, 'IN'],
      [OID.ST, identity.state],
      [OID.postalCode, identity.postalCode],
      [OID.pseudonym, reference],
      [OID.serialNumber, aadhaarHash],
      [OID.CN, identity.name],
    ]),
    issuer: pki.espCa,
    notBefore: new Date(now.getTime() - 60_000),
    notAfter: new Date(now.getTime() + 3600_000),
    ca: false,
    policies: [CCA_EKYC_OTP_POLICY],
    extra: [directoryAttributes(identity)],
  });
}

const FILES = {
  root: 'simulated-cca-root',
  espCa: 'simulated-esp-ca',
  responseSigner: 'esp-response-signing',
} as const;

async function importCredential(certPem: string, keyPem: string): Promise<Credential> {
  const keyObject = createPrivateKey(keyPem);
  const pkcs8 = keyObject.export({ type: 'pkcs8', format: 'der' });
  const privateKey = await webcrypto.subtle.importKey('pkcs8', pkcs8, RSA, true, ['sign']);
  const b64 = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/.exec(certPem)?.[1] ?? '';
  return {
    certDer: new Uint8Array(Buffer.from(b64.replace(/\s+/g, ''), 'base64')),
    certPem,
    privateKey,
    keyObject,
    keyPem,
  };
}

/** Paths of the certificate PEMs a data directory holds (written by loadOrCreateSimulatorPki). */
export function pkiPaths(dir: string): { root: string; espCa: string; responseSigner: string } {
  return {
    root: join(dir, `${FILES.root}.pem`),
    espCa: join(dir, `${FILES.espCa}.pem`),
    responseSigner: join(dir, `${FILES.responseSigner}.pem`),
  };
}

/** Reads the PKI kept in `dir`, or makes one and keeps it there (keys mode 0600). */
export async function loadOrCreateSimulatorPki(dir: string): Promise<SimulatorPki> {
  const names = Object.keys(FILES) as (keyof typeof FILES)[];
  if (names.every((n) => existsSync(join(dir, `${FILES[n]}.key.pem`)))) {
    const read = (n: keyof typeof FILES): Promise<Credential> =>
      importCredential(
        readFileSync(join(dir, `${FILES[n]}.pem`), 'utf8'),
        readFileSync(join(dir, `${FILES[n]}.key.pem`), 'utf8'),
      );
    return { root: await read('root'), espCa: await read('espCa'), responseSigner: await read('responseSigner') };
  }
  const pki = await createSimulatorPki();
  mkdirSync(dir, { recursive: true });
  for (const n of names) {
    writeFileSync(join(dir, `${FILES[n]}.pem`), pki[n].certPem);
    writeFileSync(join(dir, `${FILES[n]}.key.pem`), pki[n].keyPem, { mode: 0o600 });
  }
  return pki;
}
