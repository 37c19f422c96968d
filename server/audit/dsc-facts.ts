/**
 * What the certificate of completion shows about a USB DSC act, read from the act's audit details
 * (recorded by dsc-act.ts with server/domain/trust/dsc-trust.ts): the certificate (subject, issuer,
 * serial, validity, CCA class), whether it was trusted and why not, the chain and revocation status
 * with the time they were checked, and whether it names the recipient.
 */
export interface DscFacts {
  readonly subject: string | null;
  readonly issuer: string | null;
  readonly serial: string | null;
  readonly notBefore: string | null;
  readonly notAfter: string | null;
  readonly ccaClass: string | null;
  /** trusted | untrusted | test_certificate | not checked (acts recorded before trust checks existed). */
  readonly trust: string;
  readonly trustReason: string | null;
  readonly chainStatus: string | null;
  readonly anchor: string | null;
  readonly revocationStatus: string | null;
  readonly revocationSource: string | null;
  readonly revocationCheckedAt: string | null;
  readonly revocationTime: string | null;
  readonly signingTime: string | null;
  readonly signingTimeSource: string | null;
  readonly nameMatch: boolean | null;
  readonly emailMatch: boolean | null;
}

type Details = Record<string, unknown>;

function obj(value: unknown): Details {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Details) : {};
}

function str(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

function bool(value: unknown): boolean | null {
  return typeof value === 'boolean' ? value : null;
}

/** null when the act is not a DSC act. */
export function dscFacts(details: Details): DscFacts | null {
  if (details.method !== 'dsc') return null;
  const certificate = obj(details.certificate);
  const validation = obj(details.certificate_validation);
  const signer = obj(Array.isArray(validation.chain) ? validation.chain[0] : undefined);
  const revocation = obj(validation.revocation);
  return {
    subject: str(certificate.subject) ?? str(signer.subject),
    issuer: str(certificate.issuer) ?? str(signer.issuer),
    serial: str(certificate.serial) ?? str(signer.serial),
    notBefore: str(signer.not_before),
    notAfter: str(signer.not_after),
    ccaClass: str(certificate.cca_class),
    trust: str(details.trust) ?? 'not checked',
    trustReason: str(details.trust_reason),
    chainStatus: str(validation.chain_status),
    anchor: str(validation.anchor),
    revocationStatus: str(revocation.status),
    revocationSource: str(revocation.source),
    revocationCheckedAt: str(revocation.checked_at),
    revocationTime: str(revocation.revocation_time),
    signingTime: str(validation.signing_time),
    signingTimeSource: str(validation.signing_time_source),
    nameMatch: bool(details.name_match),
    emailMatch: bool(details.email_match),
  };
}

/** The certificate's lines for one DSC act, as [label, value] pairs; `when` formats ISO times. */
export function dscLines(f: DscFacts, when: (iso: string | null) => string): [string, string][] {
  const match = (v: boolean | null): string =>
    v === null ? 'not in the certificate' : v ? 'matches' : 'DOES NOT MATCH';
  const trust =
    f.trust === 'untrusted'
      ? `UNTRUSTED (${f.trustReason ?? 'reason not recorded'}), accepted by the account's setting`
      : f.trust === 'test_certificate'
        ? 'test certificate (sandbox), not validated'
        : f.trust;
  return [
    ['DSC certificate subject', f.subject ?? 'not recorded'],
    ['DSC certificate issuer', f.issuer ?? 'not recorded'],
    ['DSC certificate serial', f.serial ?? 'not recorded'],
    [
      'DSC certificate validity',
      f.notBefore && f.notAfter ? `${when(f.notBefore)} to ${when(f.notAfter)}` : 'not recorded',
    ],
    ['CCA class', f.ccaClass ?? 'none stated'],
    ['DSC trust', trust],
    ['Chain status', `${f.chainStatus ?? 'not checked'}${f.anchor ? ` (anchor: ${f.anchor})` : ''}`],
    [
      'Revocation status',
      `${f.revocationStatus ?? 'not checked'}${f.revocationSource ? ` by ${f.revocationSource.toUpperCase()}` : ''}${f.revocationCheckedAt ? `, checked ${when(f.revocationCheckedAt)}` : ''}${f.revocationTime ? `, revoked ${when(f.revocationTime)}` : ''}`,
    ],
    [
      'Signing time',
      f.signingTime
        ? `${when(f.signingTime)} (${f.signingTimeSource === 'timestamp' ? 'trusted timestamp' : 'server clock'})`
        : 'not recorded',
    ],
    ['Certificate name / e-mail', `name ${match(f.nameMatch)}, e-mail ${match(f.emailMatch)}`],
  ];
}
