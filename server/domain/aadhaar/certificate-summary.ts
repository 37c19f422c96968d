/**
 * What the audit trail records about an Aadhaar eSign certificate: the name, and the e-KYC attributes CCA
 * eSign certificates carry when present: state and postal code in the subject, a per-signature pseudonym,
 * serialNumber (a hash of the Aadhaar number, never the number), year of birth and gender in
 * subjectDirectoryAttributes (RFC 3739), and a masked Aadhaar number if an ESP puts one in the subject.
 */
import * as asn1js from 'asn1js';
import { certInfo, policyOids, subjectValues } from '../../../pdf/index.js';

const DATE_OF_BIRTH = '1.3.6.1.5.5.7.9.1';
const GENDER = '1.3.6.1.5.5.7.9.3';

export interface EsignCertificateSummary {
  readonly name: string | null;
  readonly subject: string;
  readonly issuer: string;
  readonly serial: string;
  readonly not_before: string;
  readonly not_after: string;
  readonly state: string | null;
  readonly postal_code: string | null;
  readonly pseudonym: string | null;
  readonly uid_hash: string | null;
  readonly masked_aadhaar: string | null;
  readonly year_of_birth: number | null;
  readonly gender: string | null;
  /** CCA certificate policies (2.16.356.100.2.*) found. */
  readonly policies: string[];
}

function directoryAttributes(value: ArrayBuffer): { yob: number | null; gender: string | null } {
  const out = { yob: null as number | null, gender: null as string | null };
  const parsed = asn1js.fromBER(value);
  if (parsed.offset === -1 || !(parsed.result instanceof asn1js.Sequence)) return out;
  for (const attribute of parsed.result.valueBlock.value) {
    if (!(attribute instanceof asn1js.Sequence)) continue;
    const [type, values] = attribute.valueBlock.value;
    if (!(type instanceof asn1js.ObjectIdentifier) || !(values instanceof asn1js.Set)) continue;
    const first = values.valueBlock.value[0];
    const oid = type.valueBlock.toString();
    if (oid === DATE_OF_BIRTH && first instanceof asn1js.GeneralizedTime) out.yob = first.toDate().getUTCFullYear();
    if (oid === GENDER && (first instanceof asn1js.PrintableString || first instanceof asn1js.Utf8String)) {
      out.gender = first.getValue();
    }
  }
  return out;
}

export function summarizeEsignCertificate(der: Uint8Array): EsignCertificateSummary {
  const info = certInfo(der);
  const subject = info.x509.subject;
  const extensions = info.cert.extensions ?? [];
  const sda = extensions.find((e) => e.extnID === '2.5.29.9');
  const attrs = sda
    ? directoryAttributes(sda.extnValue.valueBlock.valueHexView.slice().buffer)
    : { yob: null, gender: null };
  const policies = policyOids(info).filter((oid) => oid.startsWith('2.16.356.100.2'));
  const subjectValue = (key: string): string | null => subjectValues(info, key)[0] ?? null;
  const masked =
    subject
      .split('\n')
      .map((l) => l.slice(l.indexOf('=') + 1).trim())
      .find((v) => /^[Xx*]{8}\d{4}$/.test(v.replace(/[\s-]/g, ''))) ?? null;
  return {
    name: subjectValue('CN'),
    subject: subject.replace(/\n/g, ', '),
    issuer: info.x509.issuer.replace(/\n/g, ', '),
    serial: info.serialHex,
    not_before: new Date(info.x509.validFrom).toISOString(),
    not_after: new Date(info.x509.validTo).toISOString(),
    state: subjectValue('ST'),
    postal_code: subjectValue('postalCode'),
    pseudonym: subjectValue('pseudonym'),
    uid_hash: subjectValue('serialNumber'),
    masked_aadhaar: masked,
    year_of_birth: attrs.yob,
    gender: attrs.gender,
    policies,
  };
}
