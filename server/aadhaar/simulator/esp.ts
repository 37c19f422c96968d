/**
 * The simulated ESP's logic, without HTTP: receive a signed Esign request, authenticate the signer
 * (scripted by Aadhaar number), sign every InputHash as a detached CMS with a one-hour certificate, and
 * answer with a signed EsignResp; answer EsignStatus queries from what it remembers.
 */
import { randomBytes, sign as nodeSign } from 'node:crypto';
import type { Element } from '@xmldom/xmldom';
import { createSignedData, type SignatureProvider } from '../../../pdf/index.js';
import {
  ESIGN_VERSION,
  formatEsignTimestamp,
  parseEsignRequest,
  parseEsignStatusRequest,
  parseEsignTimestamp,
  signEsignResponse,
  type DocSignature,
  type EsignRequest,
  type EsignResponse,
} from '../messages.js';
import { parseXml, verifyEnveloped } from '../xml.js';
import { issueSignerCertificate, type Credential, type SimulatorPki } from './ca.js';
import { AUTH_ERRORS, outcomeFor, REQUEST_ERRORS, type EspError } from './scenarios.js';

export interface EspOptions {
  readonly pki: SimulatorPki;
  /** Registered ASPs: aspId → the ASP's certificate (PEM) that signs its requests. */
  readonly asps: ReadonlyMap<string, string>;
  readonly now?: () => Date;
  /** How far a request's ts may be from the ESP's clock (default 15 minutes). */
  readonly maxSkewMs?: number;
  /** How long a started transaction waits for the signer (default 30 minutes). */
  readonly sessionMs?: number;
}

export interface Session {
  readonly id: string;
  readonly request: EsignRequest;
  readonly createdAt: Date;
  /** The signed EsignResp once the signer finished (or failed). */
  responseXml?: string;
}

/** What the ESP does with a form post: show the OTP page, post an error back, or show an error itself. */
export type Reception =
  | { readonly kind: 'authenticate'; readonly session: Session }
  | { readonly kind: 'respond'; readonly responseUrl: string; readonly responseXml: string; readonly txn: string }
  | { readonly kind: 'refuse'; readonly error: EspError; readonly detail: string };

export interface Credentials {
  readonly aadhaar: string;
  readonly otp: string;
  /** The name e-KYC "returns" (the simulator has no UIDAI behind it). */
  readonly name: string;
  readonly cancel?: boolean;
}

const SIGNER_DEFAULTS = { yearOfBirth: 1990, gender: 'F', state: 'Karnataka', postalCode: '560001' } as const;

export class EspSimulator {
  private readonly sessions = new Map<string, Session>();
  private readonly byTxn = new Map<string, Session>();
  private readonly now: () => Date;

  constructor(private readonly options: EspOptions) {
    this.now = options.now ?? (() => new Date());
  }

  /** The browser's form post of the ASP: `eSignRequest` (signed Esign XML), `aspTxnID`, `Content-Type`. */
  async receive(form: URLSearchParams): Promise<Reception> {
    this.forgetOld();
    const xml = form.get('eSignRequest');
    if (!xml) return refuse(REQUEST_ERRORS.malformed, 'no eSignRequest field');
    let root: Element;
    try {
      root = parseXml(xml).documentElement!;
    } catch (e) {
      return refuse(REQUEST_ERRORS.malformed, (e as Error).message);
    }
    const aspId = root.getAttribute('aspId') ?? '';
    const aspCert = this.options.asps.get(aspId);
    if (!aspCert) return refuse(REQUEST_ERRORS.unknownAsp, `aspId "${aspId}"`);
    let signed: Element;
    try {
      signed = verifyEnveloped(xml, { certificatePem: aspCert, rootName: 'Esign' });
    } catch (e) {
      return refuse(REQUEST_ERRORS.badSignature, (e as Error).message);
    }
    let request: EsignRequest;
    try {
      request = parseEsignRequest(signed);
    } catch (e) {
      return refuse(REQUEST_ERRORS.malformed, (e as Error).message);
    }
    // From here the responseUrl is the ASP's own: problems are posted back to it.
    const problem = this.checkRequest(request, form);
    if (problem) {
      return {
        kind: 'respond',
        responseUrl: request.responseUrl,
        txn: request.txn,
        responseXml: await this.failure(request.txn, problem),
      };
    }
    const session: Session = { id: randomBytes(16).toString('hex'), request, createdAt: this.now() };
    this.sessions.set(session.id, session);
    this.byTxn.set(`${aspId}\n${request.txn}`, session);
    return { kind: 'authenticate', session };
  }

  private checkRequest(req: EsignRequest, form: URLSearchParams): EspError | undefined {
    const bad = (what: string): EspError => ({
      errCode: REQUEST_ERRORS.badAttribute.errCode,
      errMsg: `${REQUEST_ERRORS.badAttribute.errMsg}: ${what}`,
    });
    if (req.ver !== ESIGN_VERSION) return bad(`ver must be ${ESIGN_VERSION}`);
    if (req.sc !== 'Y') return bad('sc must be Y (consent)');
    if (req.ekycIdType !== 'A') return bad('ekycIdType must be A');
    if (req.authMode !== '1') return bad('AuthMode must be 1 (OTP): the simulator has no biometric devices');
    if (req.responseSigType !== 'pkcs7') return bad('responseSigType must be pkcs7');
    if (!/^https?:\/\//.test(req.responseUrl)) return bad('responseUrl must be an http(s) URL');
    if (!req.txn || req.txn.length > 50) return bad('txn must have 1 to 50 characters');
    if (form.get('aspTxnID') !== req.txn) return bad('aspTxnID must equal txn');
    const contentType = form.get('Content-Type');
    if (contentType !== null && contentType !== 'application/xml') return bad('Content-Type must be application/xml');
    const ts = parseEsignTimestamp(req.ts);
    if (!ts || Math.abs(ts.getTime() - this.now().getTime()) > (this.options.maxSkewMs ?? 15 * 60_000)) {
      return REQUEST_ERRORS.staleTimestamp;
    }
    if (this.byTxn.has(`${req.aspId}\n${req.txn}`)) return REQUEST_ERRORS.repeatedTxn;
    return undefined;
  }

  session(id: string): Session | undefined {
    this.forgetOld();
    return this.sessions.get(id);
  }

  /** The signer submitted the OTP page (or cancelled): sign, or fail as scripted. Once per session. */
  async authenticate(
    sessionId: string,
    credentials: Credentials,
  ): Promise<{ responseUrl: string; responseXml: string; txn: string } | undefined> {
    const session = this.session(sessionId);
    if (!session || session.responseXml) return undefined;
    const { request } = session;
    const outcome = credentials.cancel
      ? { kind: 'fail' as const, error: AUTH_ERRORS.cancelled }
      : outcomeFor(credentials.aadhaar, credentials.otp);
    session.responseXml =
      outcome.kind === 'fail'
        ? await this.failure(request.txn, outcome.error)
        : await this.success(request, {
            ...SIGNER_DEFAULTS,
            aadhaar: credentials.aadhaar,
            name: outcome.ekycName ?? (credentials.name.trim() || 'Test Signer'),
          });
    return { responseUrl: request.responseUrl, responseXml: session.responseXml, txn: request.txn };
  }

  /** EsignStatus (server to server): the EsignResp as sent, status 2 while pending, ESP-907 when unknown. */
  async status(xml: string): Promise<string> {
    this.forgetOld();
    let txn = '';
    try {
      const root = parseXml(xml).documentElement!;
      txn = root.getAttribute('txn') ?? '';
      const aspCert = this.options.asps.get(root.getAttribute('aspId') ?? '');
      if (!aspCert) return this.failure(txn, REQUEST_ERRORS.unknownAsp);
      const query = parseEsignStatusRequest(verifyEnveloped(xml, { certificatePem: aspCert, rootName: 'EsignStatus' }));
      const session = this.byTxn.get(`${query.aspId}\n${query.txn}`);
      if (!session) return this.failure(query.txn, REQUEST_ERRORS.unknownTxn);
      return (
        session.responseXml ??
        this.respond({
          status: '2',
          txn: query.txn,
          errCode: 'NA',
          errMsg: 'Pending: the signer has not finished',
          userCertificate: '',
          signatures: [],
        })
      );
    } catch (e) {
      return this.failure(txn, {
        ...REQUEST_ERRORS.badSignature,
        errMsg: `${REQUEST_ERRORS.badSignature.errMsg} (${(e as Error).message})`,
      });
    }
  }

  private async success(
    request: EsignRequest,
    identity: Parameters<typeof issueSignerCertificate>[1],
  ): Promise<string> {
    const resCode = randomBytes(8).toString('hex').toUpperCase();
    const signer = await issueSignerCertificate(this.options.pki, identity, resCode, this.now());
    const provider = signatureProvider(signer, [this.options.pki.espCa.certDer, this.options.pki.root.certDer]);
    const signatures: DocSignature[] = [];
    for (const doc of request.docs) {
      const cms = await createSignedData({ messageDigest: Buffer.from(doc.hash, 'hex'), signer: provider });
      signatures.push({
        id: doc.id,
        sigHashAlgorithm: 'SHA256',
        error: '',
        value: Buffer.from(cms).toString('base64'),
      });
    }
    return this.respond({
      status: '1',
      txn: request.txn,
      resCode,
      errCode: 'NA',
      errMsg: 'NA',
      userCertificate: Buffer.from(signer.certDer).toString('base64'),
      signatures,
    });
  }

  private failure(txn: string, error: EspError): Promise<string> {
    return this.respond({
      status: '0',
      txn,
      errCode: error.errCode,
      errMsg: error.errMsg,
      userCertificate: '',
      signatures: [],
    });
  }

  private respond(fields: Omit<EsignResponse, 'ver' | 'ts' | 'resCode'> & { resCode?: string }): Promise<string> {
    const response: EsignResponse = {
      ver: ESIGN_VERSION,
      ts: formatEsignTimestamp(this.now()),
      resCode: randomBytes(8).toString('hex').toUpperCase(),
      ...fields,
    };
    return signEsignResponse(response, signatureProvider(this.options.pki.responseSigner, []));
  }

  private forgetOld(): void {
    const limit = this.now().getTime() - (this.options.sessionMs ?? 30 * 60_000);
    for (const [id, s] of this.sessions) {
      if (s.createdAt.getTime() >= limit) continue;
      this.sessions.delete(id);
      this.byTxn.delete(`${s.request.aspId}\n${s.request.txn}`);
    }
  }
}

function refuse(error: EspError, detail: string): Reception {
  return { kind: 'refuse', error, detail };
}

function signatureProvider(credential: Credential, chain: readonly Uint8Array[]): SignatureProvider {
  return {
    certificate: credential.certDer,
    chain,
    keyType: 'RSA',
    sign: async (data) => new Uint8Array(nodeSign('sha256', data, credential.keyObject)),
  };
}
