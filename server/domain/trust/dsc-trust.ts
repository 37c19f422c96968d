/**
 * Is a USB DSC signature's certificate trusted? Called once per upload by dsc-act.ts, before anything is
 * stored. Steps: the signing time (a signature timestamp counts only when its TSA chains to a trust anchor;
 * otherwise the server's clock), the path to a trust anchor (CCA India roots + MOHAR_DSC_TRUST_ANCHORS;
 * missing issuers fetched from AIA), the path judged at the signing time, revocation (OCSP first, CRL
 * second, through the guarded transport: pdf/cms gatherValidationData), then the binding to the recipient.
 * Live envelopes refuse an untrusted certificate unless the account accepts them; the sandbox's mock DSC
 * requests sign with self-signed test certificates and are recorded as such, never refused.
 */
import type { Kysely } from 'kysely';
import { MoharError } from '../../../common/errors.js';
import {
  buildCertificatePath,
  certInfo,
  gatherValidationData,
  inspectCms,
  judgeCertificatePath,
  type CertInfo,
  type CmsInspection,
  type ValidationData,
} from '../../../pdf/index.js';
import type { Database } from '../../storage/schema.js';
import { identityPolicy, readSettings } from '../accounts/settings.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import { dscTrustAnchors } from './anchors.js';
import { buildPathFetchingIssuers } from './certificate-path.js';
import { bindIdentity, identityRefused, type IdentityBinding } from './identity.js';
import { judgeRevocation, type RevocationRecord } from './revocation.js';

export type UntrustedReason =
  'unknown_issuer' | 'expired' | 'not_yet_valid' | 'revoked' | 'revocation_unknown' | 'not_for_signing';

export interface ChainEntry {
  readonly subject: string;
  readonly issuer: string;
  readonly serial: string;
  readonly not_before: string;
  readonly not_after: string;
}

/** What the act records (act_details and the recipient.signed event) about the certificate. */
export interface DscTrustRecord {
  readonly trust: 'trusted' | 'untrusted' | 'test_certificate';
  /** Why it is untrusted (null when trusted or a test certificate). */
  readonly trust_reason: UntrustedReason | null;
  readonly name_match: boolean;
  readonly email_match: boolean | null;
  readonly certificate_validation: {
    readonly signing_time: string;
    readonly signing_time_source: 'timestamp' | 'server_clock';
    readonly anchor: string | null;
    /** Signer first, the anchor last (as far as it could be built). */
    readonly chain: ChainEntry[];
    /** 'valid', or the reason the path failed. */
    readonly chain_status: 'valid' | 'not_checked' | Exclude<UntrustedReason, 'revoked' | 'revocation_unknown'>;
    readonly revocation: RevocationRecord;
    readonly identity: IdentityBinding;
    readonly problems: string[];
  };
}

export interface DscTrustJudgement {
  readonly record: DscTrustRecord;
  /** The validation material found (for the /DSS at completion); empty for test certificates. */
  readonly validationData: Pick<ValidationData, 'certs' | 'ocsps' | 'crls'>;
}

export interface JudgeDscInput {
  readonly envelopeId: string;
  readonly recipient: { readonly name: string; readonly email: string };
  /** The uploaded PDF and the new signature's /ByteRange. */
  readonly pdf: Uint8Array;
  readonly byteRange: readonly number[];
  /** The signature timestamp as verifyPdf reported it (imprint and TSA signature checked there). */
  readonly timestamp: { readonly genTime: string; readonly valid: boolean } | null;
}

function contentsOf(pdf: Uint8Array, byteRange: readonly number[]): Buffer {
  const [, a = 0, b = 0] = byteRange;
  return Buffer.from(Buffer.from(pdf.subarray(a + 1, b - 1)).toString('latin1'), 'hex');
}

function entry(cert: CertInfo): ChainEntry {
  return {
    subject: cert.subject,
    issuer: cert.x509.issuer.replace(/\n/g, ', '),
    serial: cert.serialHex,
    not_before: new Date(cert.x509.validFrom).toISOString(),
    not_after: new Date(cert.x509.validTo).toISOString(),
  };
}

/** The signature timestamp's time, when its TSA chains to a trust anchor and was valid then; else null. */
function trustedTimestampTime(
  cms: CmsInspection,
  reported: JudgeDscInput['timestamp'],
  anchors: readonly Uint8Array[],
  problems: string[],
): Date | null {
  const token = cms.timestamp;
  if (!reported || !token) return null;
  if (!reported.valid || !token.signatureValid || !token.tsaCertificate) {
    problems.push('the signature timestamp does not verify: the server clock is the signing time');
    return null;
  }
  const genTime = new Date(reported.genTime);
  // TSA certificates come from the token only: a timestamp is not worth an outbound fetch.
  const path = buildCertificatePath(token.tsaCertificate, token.certificates, anchors);
  const judged = judgeCertificatePath(path, genTime);
  const usable = judged.problems.filter((p) => !/not for signing/.test(p));
  if (!path.anchored || usable.length > 0 || !token.timestampingCertificate) {
    problems.push(
      `the signature timestamp's TSA is not trusted (${[...usable, ...(token.timestampingCertificate ? [] : ['no timeStamping EKU'])].join('; ') || 'no path to an anchor'}): the server clock is the signing time`,
    );
    return null;
  }
  return genTime;
}

async function isSandboxRequest(ctx: Context, envelopeId: string): Promise<boolean> {
  return (
    (await ctx.db
      .selectFrom('sandbox_requests')
      .select('public_id')
      .where('envelope_id', '=', envelopeId)
      .executeTakeFirst()) !== undefined
  );
}

/** Judges the new DSC signature's certificate; refuses (MoharError) what the account does not accept. */
export async function judgeDscSignature(ctx: Context, input: JudgeDscInput): Promise<DscTrustJudgement> {
  const cms = inspectCms(contentsOf(input.pdf, input.byteRange));
  if (!cms.signerCertificate) {
    throw new MoharError(
      'invalid_signed_document',
      'the signed document was not accepted: the signature carries no signer certificate',
    );
  }
  const signer = certInfo(cms.signerCertificate);
  const identity = bindIdentity(signer, input.recipient);
  const now = ctx.now();
  if (await isSandboxRequest(ctx, input.envelopeId)) return testCertificate(signer, identity, now);

  const anchors = dscTrustAnchors(ctx.config);
  const transport = ctx.transports.certificateUrls;
  const problems: string[] = [];
  const stamped = trustedTimestampTime(cms, input.timestamp, anchors, problems);
  const signedAt = stamped ?? now;
  const { built, fetched } = await buildPathFetchingIssuers(
    cms.signerCertificate,
    cms.certificates,
    anchors,
    transport,
  );
  problems.push(...fetched.filter((f) => f.problem).map((f) => `caIssuers ${f.url}: ${f.problem}`));
  const judged = judgeCertificatePath(built, signedAt);
  problems.push(...judged.problems);
  const chainStatus =
    judged.problem === null ? 'valid' : judged.problem === 'bad_ca' ? 'unknown_issuer' : judged.problem;

  let revocation: RevocationRecord = {
    status: 'not_checked',
    source: null,
    url: null,
    checked_at: null,
    revocation_time: null,
    revocation_reason: null,
  };
  let validationData: DscTrustJudgement['validationData'] = {
    certs: built.path.map((c) => c.der),
    ocsps: [],
    crls: [],
  };
  if (built.anchored) {
    // Revocation is asked now; a timestamp proves when the signature existed, so a later revocation does not void it.
    const gathered = await gatherValidationData({
      chain: built.path.map((c) => c.der),
      tsaChain: cms.timestamp?.certificates ?? [],
      transport,
      at: now,
      requireAll: false,
    });
    validationData = gathered;
    revocation = judgeRevocation(built.path, gathered.notes, stamped, now, problems);
  }
  const reason: UntrustedReason | null =
    chainStatus !== 'valid'
      ? chainStatus
      : revocation.status === 'revoked'
        ? 'revoked'
        : revocation.status === 'good'
          ? null
          : 'revocation_unknown';
  const record: DscTrustRecord = {
    trust: reason === null ? 'trusted' : 'untrusted',
    trust_reason: reason,
    name_match: identity.name_match,
    email_match: identity.email_match,
    certificate_validation: {
      signing_time: iso(signedAt),
      signing_time_source: stamped ? 'timestamp' : 'server_clock',
      anchor: built.anchored ? built.path.at(-1)!.subject : null,
      chain: built.path.map(entry),
      chain_status: chainStatus,
      revocation,
      identity,
      problems,
    },
  };
  await enforceAccountPolicy(ctx, input.envelopeId, record);
  return { record, validationData };
}

function testCertificate(signer: CertInfo, identity: IdentityBinding, now: Date): DscTrustJudgement {
  return {
    record: {
      trust: 'test_certificate',
      trust_reason: null,
      name_match: identity.name_match,
      email_match: identity.email_match,
      certificate_validation: {
        signing_time: iso(now),
        signing_time_source: 'server_clock',
        anchor: null,
        chain: [entry(signer)],
        chain_status: 'not_checked',
        revocation: {
          status: 'not_checked',
          source: null,
          url: null,
          checked_at: null,
          revocation_time: null,
          revocation_reason: null,
        },
        identity,
        problems: ['sandbox mock DSC request: a self-signed test certificate, not validated'],
      },
    },
    validationData: { certs: [], ocsps: [], crls: [] },
  };
}

const REASON_TEXT: Record<UntrustedReason, string> = {
  unknown_issuer: 'it does not chain to a trusted certifying authority',
  expired: 'it had expired at the signing time',
  not_yet_valid: 'it was not yet valid at the signing time',
  revoked: 'it has been revoked',
  revocation_unknown: 'its revocation status could not be established (OCSP and CRL)',
  not_for_signing: 'its key usage does not allow signing',
};

async function enforceAccountPolicy(ctx: Context, envelopeId: string, record: DscTrustRecord): Promise<void> {
  const { account_id: accountId } = await ctx.db
    .selectFrom('envelopes')
    .select('account_id')
    .where('id', '=', envelopeId)
    .executeTakeFirstOrThrow();
  const settings = await readSettings(ctx, accountId);
  const reason = record.trust_reason;
  if (reason !== null && !settings.accept_untrusted_dsc) {
    const subject = record.certificate_validation.chain[0]?.subject ?? 'the signer';
    throw new MoharError(
      'dsc_certificate_untrusted',
      `the certificate of ${subject} is not trusted: ${REASON_TEXT[reason]} (${record.certificate_validation.problems.join('; ')})`,
      { extra: { reason } },
    );
  }
  const id = record.certificate_validation.identity;
  if (identityRefused(id, identityPolicy(settings))) {
    // The names and e-mails go back to the signer, who chose the certificate and sees it on the token anyway.
    throw new MoharError(
      'dsc_identity_mismatch',
      `the certificate does not name this recipient (certificate: ${id.certificate_name ?? 'no name'} ${id.certificate_emails.join(', ') || 'no e-mail'}; name ${id.name_match ? 'matches' : 'differs'}, e-mail ${id.email_match === null ? 'absent' : id.email_match ? 'matches' : 'differs'})`,
      {
        extra: {
          name_match: id.name_match,
          email_match: id.email_match,
          certificate_name: id.certificate_name,
          certificate_emails: id.certificate_emails,
        },
      },
    );
  }
}

/** Keeps the validation material with the act (base64 DER) for the /DSS at completion: not in the audit trail. */
export async function storeValidationData(
  trx: Kysely<Database>,
  recipientId: string,
  judgement: DscTrustJudgement,
): Promise<void> {
  const row = await trx
    .selectFrom('recipients')
    .select('act_details')
    .where('id', '=', recipientId)
    .executeTakeFirstOrThrow();
  const b64 = (list: readonly Uint8Array[]) => list.map((d) => Buffer.from(d).toString('base64'));
  const { certs, ocsps, crls } = judgement.validationData;
  const details = {
    ...(JSON.parse(row.act_details ?? '{}') as object),
    validation_data: { certs: b64(certs), ocsps: b64(ocsps), crls: b64(crls) },
  };
  await trx
    .updateTable('recipients')
    .set({ act_details: JSON.stringify(details) })
    .where('id', '=', recipientId)
    .execute();
}
