/**
 * The ESP simulator built into the server for test data (issue 18: "the sandbox's test-mode accounts use the
 * simulator by default"). It runs in-process and is served under this server's own origin
 * (SANDBOX_ESP_PATH, routes/sandbox-esp.ts), so the signer's browser reaches it wherever Mohar is reachable,
 * behind a proxy too. Its test CA, ESP response key and a generated sandbox ASP key (PKCS#12) are made once
 * and kept in {MOHAR_DATA_DIR}/esign-sandbox, so transactions survive restarts of the keys (not of the
 * simulator's in-memory sessions). Nothing here is trusted for live data: domain/aadhaar/esign-for.ts hands
 * these settings (and the simulated root as the only trust anchor) to test envelopes only.
 */
import { createPrivateKey } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EsignConfig } from '../config-esign.js';
import { issueAspCertificate, loadOrCreateSimulatorPki, type SimulatorPki } from './simulator/ca.js';
import { EspSimulator } from './simulator/esp.js';
import { BASE } from './simulator/pages.js';
import { writePkcs12 } from './simulator/pkcs12.js';
import { SANDBOX_ESP_PATH } from '../../common/api-paths.js';

/** The aspId of the sandbox ASP (this server acting as ASP towards its own simulator). */
export const SANDBOX_ASP_ID = 'MOHAR-SANDBOX-ASP';
/** The generated ASP PKCS#12 is test material like the rest of the directory; its file is mode 0600. */
const ASP_P12_PASSPHRASE = 'esign-sandbox';

export interface SandboxEsp {
  readonly esp: EspSimulator;
  /** The eSign settings test envelopes use: the built-in ESP, the sandbox ASP key, its pinned response certificate. */
  readonly settings: EsignConfig;
  /** The simulated CCA root (DER): the one anchor of a sandbox eSign certificate. */
  readonly rootDer: Uint8Array;
  readonly dir: string;
}

interface SandboxOptions {
  readonly dataDir: string;
  readonly baseUrl: string;
  readonly now: () => Date;
}

/** One per configuration object (a Config is parsed once per server). */
const started = new WeakMap<object, Promise<SandboxEsp>>();

function derOf(pem: string): Buffer {
  return Buffer.from(
    /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/.exec(pem)?.[1]?.replace(/\s+/g, '') ?? '',
    'base64',
  );
}

/** The sandbox ASP's certificate and PKCS#12, generated once under the simulated root. */
async function sandboxAsp(pki: SimulatorPki, dir: string): Promise<{ certPem: string; p12Path: string }> {
  const certPath = join(dir, 'asp.pem');
  const keyPath = join(dir, 'asp.key.pem');
  const p12Path = join(dir, 'asp.p12');
  if (!existsSync(certPath) || !existsSync(keyPath)) {
    const asp = await issueAspCertificate(pki, SANDBOX_ASP_ID);
    writeFileSync(keyPath, asp.keyPem, { mode: 0o600 });
    writeFileSync(certPath, asp.certPem);
  }
  const certPem = readFileSync(certPath, 'utf8');
  if (!existsSync(p12Path)) {
    const pkcs8 = createPrivateKey(readFileSync(keyPath, 'utf8')).export({ type: 'pkcs8', format: 'der' });
    writeFileSync(
      p12Path,
      await writePkcs12({
        pkcs8,
        certificate: derOf(certPem),
        passphrase: ASP_P12_PASSPHRASE,
        name: `${SANDBOX_ASP_ID} ASP`,
      }),
      { mode: 0o600 },
    );
  }
  return { certPem, p12Path };
}

async function create(options: SandboxOptions): Promise<SandboxEsp> {
  const dir = join(options.dataDir, 'esign-sandbox');
  const pki = await loadOrCreateSimulatorPki(dir);
  const asp = await sandboxAsp(pki, dir);
  const esp = new EspSimulator({ pki, asps: new Map([[SANDBOX_ASP_ID, asp.certPem]]), now: options.now });
  const settings: EsignConfig = {
    espUrl: `${options.baseUrl}${SANDBOX_ESP_PATH}${BASE}/signdoc`,
    // No EsignStatus recovery in the sandbox: the server would have to reach itself through its public URL.
    statusUrl: undefined,
    aspId: SANDBOX_ASP_ID,
    aspKey: { pkcs12: asp.p12Path, passphrase: ASP_P12_PASSPHRASE },
    espCertificatePem: pki.responseSigner.certPem,
    authMode: '1',
  };
  return { esp, settings, rootDer: pki.root.certDer, dir };
}

/** The built-in ESP of this configuration, started on first use (keys read or made in the data directory). */
export function sandboxEsp(key: object, options: SandboxOptions): Promise<SandboxEsp> {
  let running = started.get(key);
  if (!running) {
    running = create(options);
    started.set(key, running);
    running.catch(() => started.delete(key));
  }
  return running;
}
