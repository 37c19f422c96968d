/**
 * The sandbox's ephemeral test certificate: a fresh EC P-256 key and a self-signed certificate per mock
 * signing. The subject carries the signer's name and e-mail and says, in its own attributes, that it is a
 * test certificate and not a legally trusted DSC, so no reader of the signed PDF can mistake it. The key
 * lives only in memory for the one signature and is dropped afterwards.
 */
import { createHash, createPrivateKey, webcrypto } from 'node:crypto';
import { certInfo, softwareSigner, type SignatureProvider } from '../../../pdf/index.js';
import {
  distinguishedName,
  makeCertificate,
  OID_COMMON_NAME,
  OID_EMAIL,
  OID_ORGANIZATION,
  OID_ORGANIZATIONAL_UNIT,
} from '../../seal/certificate-builder.js';

export const TEST_CERTIFICATE_NOTICE = 'TEST CERTIFICATE - not a legally trusted DSC';
const EC_KEY = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const BACKDATE_MS = 5 * 60 * 1000;
const VALID_DAYS = 30;

export interface TestCertificateSummary {
  subject: string;
  issuer: string;
  serial_number: string;
  not_before: string;
  not_after: string;
  sha256_fingerprint: string;
  self_signed: true;
  test_certificate: true;
}

export interface TestCertificate {
  readonly signer: SignatureProvider;
  readonly summary: TestCertificateSummary;
}

export async function makeTestCertificate(
  holder: { name: string; email: string },
  now: Date,
): Promise<TestCertificate> {
  const subject = distinguishedName([
    [OID_ORGANIZATION, 'Mohar sandbox'],
    [OID_ORGANIZATIONAL_UNIT, TEST_CERTIFICATE_NOTICE],
    [OID_COMMON_NAME, `${holder.name.slice(0, 40)} (TEST)`],
    [OID_EMAIL, holder.email],
  ]);
  const keys = await webcrypto.subtle.generateKey(EC_KEY, true, ['sign', 'verify']);
  const notBefore = new Date(now.getTime() - BACKDATE_MS);
  const notAfter = new Date(notBefore.getTime() + VALID_DAYS * 86_400_000);
  const { der } = await makeCertificate({
    subject,
    issuer: subject,
    publicKey: keys.publicKey,
    issuerKey: keys.privateKey,
    issuerKeyId: undefined,
    notBefore,
    notAfter,
    ca: false,
  });
  const pkcs8 = new Uint8Array(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  try {
    const keyPem = createPrivateKey({ key: Buffer.from(pkcs8), format: 'der', type: 'pkcs8' }).export({
      format: 'pem',
      type: 'pkcs8',
    });
    const signer = await softwareSigner({ keyPem, certificate: der, chain: [] });
    const { x509 } = certInfo(der);
    return {
      signer,
      summary: {
        subject: x509.subject.replace(/\n/g, ', '),
        issuer: x509.issuer.replace(/\n/g, ', '),
        serial_number: x509.serialNumber,
        not_before: new Date(x509.validFrom).toISOString(),
        not_after: new Date(x509.validTo).toISOString(),
        sha256_fingerprint: createHash('sha256').update(der).digest('hex'),
        self_signed: true,
        test_certificate: true,
      },
    };
  } finally {
    pkcs8.fill(0);
  }
}
