/**
 * DSC certificate trust for server tests: a test PKI whose root is configured as a trust anchor
 * (MOHAR_DSC_TRUST_ANCHORS), a real `openssl ocsp` responder on loopback for its intermediate (which
 * also serves the intermediate's CRL and the intermediate certificate for AIA caIssuers), and signers
 * issued with those URLs and registered as good. Revocation is fetched by the server through its guarded
 * transport, so the env also allows loopback (MOHAR_FETCH_ALLOW_PRIVATE).
 *
 *   const trust = useDscTrust();                  // at file level, before useTestServer / useSoftHsmModule
 *   useTestServer(kind, trust.env)
 *   trust.get().issue({ commonName: 'Asha Rao' }) // a software credential with OCSP + CRL URLs, registered good
 *   t.tokenKeys({ commonName, email })          // a token whose certificates name the envelope's DSC recipient
 * const softHsm = useSoftHsmModule(async () => { const t = await trust.ready(); return { pki: t.pki, keys:
 * t.tokenKeys() }; })
 *   before(() => trust.get().registerToken(softHsm.hsm))   // in the describe(): after every file-level hook
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { softwareSigner } from '../../pdf/cms/index.js';
import type { SignatureProvider } from '../../pdf/index.js';
import { startOcspResponder, type OcspResponder } from './ocsp.js';
import { createTestPki, type SoftwareCredential, type SoftwareSignerOptions, type TestPki } from './pki.js';
import { DEFAULT_TOKEN_KEYS, type TokenKeySpec } from './softhsm.js';

export interface DscTrust {
  readonly pki: TestPki;
  readonly responder: OcspResponder;
  /** The PEM bundle given as MOHAR_DSC_TRUST_ANCHORS (the test root). */
  readonly anchorsPath: string;
  /** Issues a software signer with the responder's OCSP and CRL URLs (override with null) and registers it. */
  issue(
    options: Omit<SoftwareSignerOptions, 'ocspUrl' | 'crlUrl'> & { ocspUrl?: string | null; crlUrl?: string | null },
  ): SoftwareCredential;
  /** A signature provider for a credential, carrying the chain. */
  signer(credential: SoftwareCredential): Promise<SignatureProvider>;
  /**
   * DEFAULT_TOKEN_KEYS with the responder's URLs (register the token's certificates afterwards). With `holder`,
   * every certificate on the token names that person: live envelopes refuse a certificate that names neither
   * the recipient's name nor e-mail, so a test whose DSC recipient is `holder` gives the token to them.
   */
  tokenKeys(holder?: { readonly commonName: string; readonly email: string }): TokenKeySpec[];
  register(certPem: string): void;
  /** Registers every certificate of a SoftHSM token made with tokenKeys() as good. */
  registerToken(hsm: { readonly keys: readonly { readonly certificate: { readonly certPem: string } | null }[] }): void;
  close(): Promise<void>;
}

export async function createDscTrust(anchorsPath: string): Promise<DscTrust> {
  const pki = createTestPki({ name: 'Mohar DSC Test' });
  const responder = await startOcspResponder({
    caCert: pki.intermediate.certPem,
    responderCert: pki.intermediate.certPem,
    responderKey: pki.intermediate.keyPem,
    caKey: pki.intermediate.keyPem,
  });
  writeFileSync(anchorsPath, pki.root.certPem);
  const caIssuersUrl = responder.serve('/intermediate.cer', pki.intermediate.certDer, 'application/pkix-cert');
  return {
    pki,
    responder,
    anchorsPath,
    issue(options) {
      const ocspUrl = options.ocspUrl === null ? undefined : (options.ocspUrl ?? responder.url);
      const crlUrl = options.crlUrl === null ? undefined : (options.crlUrl ?? responder.crlUrl);
      const profile: SoftwareSignerOptions = { ...options, ocspUrl, crlUrl, caIssuersUrl };
      if (!ocspUrl) delete profile.ocspUrl;
      if (!crlUrl) delete profile.crlUrl;
      const credential = pki.issueSoftwareSigner(profile);
      responder.register(credential.certPem);
      return credential;
    },
    signer: (credential) =>
      softwareSigner({ keyPem: credential.keyPem, certificate: credential.certDer, chain: [...pki.chainDer] }),
    tokenKeys: (holder) =>
      DEFAULT_TOKEN_KEYS.map((k) => ({ ...k, ...holder, ocspUrl: responder.url, crlUrl: responder.crlUrl })),
    register: (certPem) => responder.register(certPem),
    registerToken(hsm) {
      for (const key of hsm.keys) if (key.certificate) responder.register(key.certificate.certPem);
    },
    async close() {
      await responder.close();
      pki.cleanup();
    },
  };
}

/**
 * File-level hooks: the env is known at once (for useTestServer), the PKI exists from the first before().
 * Node 20 starts file-level before() hooks without awaiting the previous one: other file-level hooks that
 * need the PKI await ready() (describe-level hooks and tests run after all of them, get() is enough).
 */
export function useDscTrust(): { env: Record<string, string>; get(): DscTrust; ready(): Promise<DscTrust> } {
  const dir = mkdtempSync(join(tmpdir(), 'mohar-anchors-'));
  const anchorsPath = join(dir, 'anchors.pem');
  let trust: DscTrust | undefined;
  let making: Promise<DscTrust> | undefined;
  const ready = (): Promise<DscTrust> => (making ??= createDscTrust(anchorsPath).then((made) => (trust = made)));
  before(() => ready());
  after(async () => {
    await trust?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    env: { MOHAR_DSC_TRUST_ANCHORS: anchorsPath, MOHAR_FETCH_ALLOW_PRIVATE: '1' },
    ready,
    get() {
      if (!trust) throw new Error('useDscTrust: the PKI is made in before()');
      return trust;
    },
  };
}
