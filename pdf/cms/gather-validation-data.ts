/**
 * gatherValidationData in named stages: collect the certificates given, build each chain up to a root
 * (fetching missing issuers through AIA caIssuers), find revocation data for every certificate with a
 * known issuer (supplied data first, then OCSP, then CRLs), and refuse what stays unavailable when asked to.
 * The checks of the answers themselves live in validation-data.ts.
 */
import { MoharError } from '../../common/errors.js';
import type { HttpTransport } from '../ports.js';
import { equalBytes } from './der.js';
import { OID } from './oids.js';
import {
  buildOcspRequest,
  checkCrl,
  checkOcspResponse,
  crlDer,
  parseFetchedCertificates,
  type CertificateNote,
  type CrlCheck,
  type GatherValidationDataOptions,
  type OcspCheck,
  type ValidationData,
} from './validation-data.js';
import { accessUrls, certInfo, crlUrls, hasExtension, isIssuedBy, isSelfSigned, type CertInfo } from './x509.js';

type Role = CertificateNote['roles'][number];

interface MutableNote {
  subject: string;
  serialNumber: string;
  roles: CertificateNote['roles'];
  root: boolean;
  issuerFetchedFrom: string | null;
  status: CertificateNote['status'];
  source: CertificateNote['source'];
  url: string | null;
  revocationTime: Date | null;
  revocationReason: string | null;
  problems: string[];
}

/** An OCSP answer of "unknown": kept as the last resort when no CRL says more. */
interface UnknownOcsp {
  readonly check: OcspCheck;
  readonly der: Uint8Array;
  readonly url: string;
}

/** Longest chain followed from a leaf. */
const MAX_CHAIN_DEPTH = 10;

/** Gathers B-LT validation material for the signer chain and optionally the TSA chain. */
export async function gatherValidationData(options: GatherValidationDataOptions): Promise<ValidationData> {
  const gathering = new ValidationGathering(options);
  const leaves = gathering.collectGivenCertificates();
  await gathering.buildChains(leaves);
  await gathering.gatherRevocationData();
  const result = gathering.result();
  if (options.requireAll ?? true) refuseUnavailable(result);
  return result;
}

/** validation_data_unavailable when a certificate was left without usable revocation data. */
function refuseUnavailable(result: ValidationData): void {
  const missing = result.notes.filter((n) => n.status === 'unavailable');
  if (missing.length > 0) {
    throw new MoharError(
      'validation_data_unavailable',
      `no usable validation data for: ${missing.map((n) => `${n.subject} (${n.problems.at(-1) ?? 'nothing found'})`).join('; ')}`,
      {
        errors: missing.map((n) => ({ path: n.subject, message: n.problems.join('; ') || 'nothing found' })),
      },
    );
  }
}

class ValidationGathering {
  private readonly transport: HttpTransport;
  private readonly at: Date;
  /** Every certificate seen (given, supplied, fetched), once each, in the order first seen. */
  private readonly pool: CertInfo[] = [];
  private readonly notes = new Map<CertInfo, MutableNote>();
  private readonly issuers = new Map<CertInfo, CertInfo>();
  private readonly ocsps: Uint8Array[] = [];
  private readonly crls: Uint8Array[] = [];
  /** One fetch per CRL URL: certificates of one CA share their distribution point. */
  private readonly fetchedCrls = new Map<string, Promise<Uint8Array>>();
  /** Certificates still waiting for revocation data, with their issuers; delegated OCSP responders join on the way. */
  private readonly jobs: [CertInfo, CertInfo][] = [];
  private readonly queued = new Set<CertInfo>();
  private extraCrls: Uint8Array[] = [];

  constructor(private readonly options: GatherValidationDataOptions) {
    this.transport = options.transport;
    this.at = options.at ?? new Date();
  }

  /** Both chains and the supplied certificates into the pool; the leaves (signer, TSA) to start from. */
  collectGivenCertificates(): [CertInfo, Role][] {
    const leaves: [CertInfo, Role][] = [];
    const signerChain = this.options.chain.map((der) => this.addToPool(der));
    if (signerChain[0]) leaves.push([signerChain[0], 'signer']);
    const tsaChain = (this.options.tsaChain ?? []).map((der) => this.addToPool(der));
    if (tsaChain[0]) leaves.push([tsaChain[0], 'tsa']);
    for (const der of this.options.extra?.certs ?? []) this.addToPool(der);
    if (leaves.length === 0) throw new RangeError('gatherValidationData: the signer chain is empty');
    return leaves;
  }

  /** Stage 1: each chain up to a self-signed root, fetching missing issuers. */
  async buildChains(leaves: readonly [CertInfo, Role][]): Promise<void> {
    for (const [leaf, role] of leaves) await this.buildChain(leaf, role);
  }

  /**
   * Stage 2: revocation data for every certificate with a known issuer (and for delegated OCSP responders
   * without id-pkix-ocsp-nocheck, which a round may discover: they are asked about in the next round).
   */
  async gatherRevocationData(): Promise<void> {
    this.extraCrls = (this.options.extra?.crls ?? []).map(crlDer);
    this.jobs.push(...this.issuers);
    for (const cert of this.issuers.keys()) this.queued.add(cert);
    while (this.jobs.length > 0) {
      const batch = this.jobs.splice(0);
      await Promise.all(batch.map(([cert, issuer]) => this.revocation(cert, issuer)));
    }
  }

  result(): ValidationData {
    return {
      certs: this.pool.filter((c) => this.notes.has(c)).map((c) => c.der),
      ocsps: this.ocsps,
      crls: this.crls,
      notes: [...this.notes.values()].map((n) => ({ ...n, roles: [...n.roles], problems: [...n.problems] })),
    };
  }

  private addToPool(der: Uint8Array): CertInfo {
    const found = this.pool.find((c) => equalBytes(c.der, der));
    if (found) return found;
    const info = certInfo(der, 'invalid_signature_data');
    this.pool.push(info);
    return info;
  }

  private noteFor(c: CertInfo, role: Role): MutableNote {
    let n = this.notes.get(c);
    if (!n) {
      n = {
        subject: c.subject,
        serialNumber: c.serialHex,
        roles: [],
        root: false,
        issuerFetchedFrom: null,
        status: 'unavailable',
        source: null,
        url: null,
        revocationTime: null,
        revocationReason: null,
        problems: [],
      };
      this.notes.set(c, n);
    }
    if (!n.roles.includes(role)) n.roles.push(role);
    return n;
  }

  private async buildChain(leaf: CertInfo, role: Role): Promise<void> {
    let current = leaf;
    for (let depth = 0; depth < MAX_CHAIN_DEPTH; depth++) {
      const note = this.noteFor(current, role);
      if (isSelfSigned(current)) {
        note.root = true;
        note.status = 'not-checked';
        return;
      }
      const issuer =
        this.issuers.get(current) ??
        this.pool.find((c) => c !== current && isIssuedBy(current, c)) ??
        (await this.fetchIssuer(current, note));
      if (!issuer) {
        note.problems.push('the issuer certificate was not found: the chain is incomplete');
        return;
      }
      this.issuers.set(current, issuer);
      current = issuer;
    }
  }

  /** The issuer of `cert` from its AIA caIssuers URLs, in order; what failed is noted. */
  private async fetchIssuer(cert: CertInfo, note: MutableNote): Promise<CertInfo | undefined> {
    let issuer: CertInfo | undefined;
    for (const url of accessUrls(cert, OID.adCaIssuers)) {
      try {
        const fetched = parseFetchedCertificates(await this.transport({ url, accept: 'application/pkix-cert' }));
        for (const der of fetched) {
          const candidate = this.addToPool(der);
          if (isIssuedBy(cert, candidate)) {
            issuer = candidate;
            note.issuerFetchedFrom = url;
          }
        }
        if (issuer) break;
        note.problems.push(`caIssuers ${url} did not hold the issuer`);
      } catch (e) {
        note.problems.push(`caIssuers ${url}: ${(e as Error).message}`);
      }
    }
    return issuer;
  }

  /**
   * The revocation status of one certificate: supplied data, else OCSP (unless preferCrl), else CRLs, else an OCSP
   * "unknown".
   */
  private async revocation(cert: CertInfo, issuer: CertInfo): Promise<void> {
    const note = this.notes.get(cert)!;
    if (this.useSuppliedData(note, cert, issuer)) return;
    let unknown: UnknownOcsp | null = null;
    if (!this.options.preferCrl) {
      const asked = await this.askOcsp(note, cert, issuer);
      if (asked === 'used') return;
      unknown = asked;
    }
    if (await this.fetchCrls(note, cert, issuer)) return;
    if (unknown) this.useOcsp(note, unknown.check, unknown.der, 'ocsp', unknown.url, issuer);
  }

  /** Supplied OCSP responses (that know the certificate) and CRLs that cover it, used without fetching. */
  private useSuppliedData(note: MutableNote, cert: CertInfo, issuer: CertInfo): boolean {
    for (const der of this.options.extra?.ocsps ?? []) {
      const check = checkOcspResponse(der, cert, issuer, this.at);
      if (check.valid && check.status !== 'unknown') {
        this.useOcsp(note, check, der, 'supplied-ocsp', null, issuer);
        return true;
      }
    }
    for (const der of this.extraCrls) {
      const check = checkCrl(der, cert, issuer, this.at);
      if (check.valid) {
        this.useCrl(note, check, der, 'supplied-crl', null);
        return true;
      }
    }
    return false;
  }

  /**
   * Each AIA OCSP URL in turn: 'used' for the first valid answer that knows the certificate, else the first "unknown"
   * (or null).
   */
  private async askOcsp(note: MutableNote, cert: CertInfo, issuer: CertInfo): Promise<'used' | UnknownOcsp | null> {
    let unknown: UnknownOcsp | null = null;
    const ocspUrls = accessUrls(cert, OID.adOcsp);
    for (const url of ocspUrls) {
      let der: Uint8Array;
      try {
        der = await this.transport({
          url,
          body: buildOcspRequest(cert, issuer),
          contentType: 'application/ocsp-request',
          accept: 'application/ocsp-response',
        });
      } catch (e) {
        note.problems.push(`OCSP ${url}: ${(e as Error).message}`);
        continue;
      }
      const check = checkOcspResponse(der, cert, issuer, this.at);
      if (!check.valid) {
        note.problems.push(...check.problems.map((p) => `OCSP ${url}: ${p}`));
        continue;
      }
      if (check.status === 'unknown') {
        note.problems.push(`OCSP ${url}: the responder does not know the certificate`);
        unknown ??= { check, der, url };
        continue;
      }
      this.useOcsp(note, check, der, 'ocsp', url, issuer);
      return 'used';
    }
    if (ocspUrls.length === 0) note.problems.push('no OCSP URL in the certificate');
    return unknown;
  }

  /** Each CRL distribution point in turn: true once a valid CRL covering the certificate was used. */
  private async fetchCrls(note: MutableNote, cert: CertInfo, issuer: CertInfo): Promise<boolean> {
    const dps = crlUrls(cert);
    for (const url of dps) {
      let der: Uint8Array;
      try {
        der = await this.fetchCrl(url);
      } catch (e) {
        note.problems.push(`CRL ${url}: ${(e as Error).message}`);
        continue;
      }
      const check = checkCrl(der, cert, issuer, this.at);
      if (!check.valid) {
        note.problems.push(...check.problems.map((p) => `CRL ${url}: ${p}`));
        continue;
      }
      this.useCrl(note, check, der, 'crl', url);
      return true;
    }
    if (dps.length === 0) note.problems.push('no CRL distribution point in the certificate');
    return false;
  }

  private fetchCrl(url: string): Promise<Uint8Array> {
    let p = this.fetchedCrls.get(url);
    if (!p) {
      p = this.transport({ url, accept: 'application/pkix-crl' }).then(crlDer);
      this.fetchedCrls.set(url, p);
    }
    return p;
  }

  private useOcsp(
    note: MutableNote,
    check: OcspCheck,
    der: Uint8Array,
    source: 'ocsp' | 'supplied-ocsp',
    url: string | null,
    issuer: CertInfo,
  ): void {
    note.status = check.status ?? 'unknown';
    note.source = source;
    note.url = url;
    note.revocationTime = check.revocationTime;
    note.revocationReason = check.revocationReason;
    keep(this.ocsps, der);
    if (check.responderCertificate) this.checkResponderToo(check.responderCertificate, issuer);
  }

  /** A delegated OCSP responder needs its own status as well, unless it carries id-pkix-ocsp-nocheck. */
  private checkResponderToo(responderDer: Uint8Array, issuer: CertInfo): void {
    const responder = this.addToPool(responderDer);
    const rn = this.noteFor(responder, 'ocsp-responder');
    if (this.queued.has(responder)) return;
    if (hasExtension(responder, OID.ocspNoCheck)) {
      rn.status = 'not-checked';
    } else {
      this.queued.add(responder);
      this.jobs.push([responder, issuer]);
    }
  }

  private useCrl(
    note: MutableNote,
    check: CrlCheck,
    der: Uint8Array,
    source: 'crl' | 'supplied-crl',
    url: string | null,
  ): void {
    note.status = check.status ?? 'unknown';
    note.source = source;
    note.url = url;
    note.revocationTime = check.revocationTime;
    note.revocationReason = check.revocationReason;
    keep(this.crls, der);
  }
}

function keep(list: Uint8Array[], der: Uint8Array): void {
  if (!list.some((x) => equalBytes(x, der))) list.push(der);
}
