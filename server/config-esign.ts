/**
 * The Aadhaar eSign settings (MOHAR_ESIGN_*), parsed by parseConfig in config.ts (nothing else reads the
 * environment). All or nothing: without MOHAR_ESIGN_ESP_URL Aadhaar eSign is off and `aadhaar` recipients
 * are refused (422 aadhaar_not_configured); with it, the ASP id, the ASP key and the pinned ESP
 * certificate are required, and a half-configured server does not start.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from './config-error.js';

type Env = Readonly<Record<string, string | undefined>>;

/** eSign 2.1 AuthMode: 1 OTP, 2 biometric (fingerprint), 3 iris. */
export const ESIGN_AUTH_MODES = ['1', '2', '3'] as const;
export type EsignAuthMode = (typeof ESIGN_AUTH_MODES)[number];

/** MOHAR_ESIGN_ASP_PKCS11_*: the same shape as the seal's MOHAR_SEAL_PKCS11_*. */
export interface EsignPkcs11Key {
  readonly module: string;
  readonly token: string | undefined;
  readonly certId: string;
  readonly pin: string;
}

export interface EsignConfig {
  /** The ESP's form URL: the signer's browser posts the signed Esign request there. */
  readonly espUrl: string;
  /** The ESP's EsignStatus endpoint (server to server), for lost callbacks; unset: no recovery by query. */
  readonly statusUrl: string | undefined;
  /** The ASP id the ESP registered (aspId). */
  readonly aspId: string;
  /**
   * The ASP's signing key and certificate that sign every Esign request: a PKCS#12 file, or a key on a
   * PKCS#11 token or HSM (opened by `mohar serve`, like the seal's: server/ may not import native/).
   */
  readonly aspKey: { readonly pkcs12: string; readonly passphrase: string } | { readonly pkcs11: EsignPkcs11Key };
  /** The ESP's certificate (PEM), pinned: EsignResp signatures by any other key are refused. */
  readonly espCertificatePem: string;
  readonly authMode: EsignAuthMode;
}

function text(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function httpUrl(env: Env, name: string): string | undefined {
  const raw = text(env, name);
  if (raw === undefined) return undefined;
  if (!URL.canParse(raw)) throw new ConfigError(name, `must be a URL (got "${raw}")`);
  const parsed = new URL(raw);
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new ConfigError(
      name,
      `must start with https:// (or http:// for a local simulator) (got "${parsed.protocol}//…")`,
    );
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw new ConfigError(name, 'must not contain a user name or password');
  }
  return parsed.href;
}

function required(env: Env, name: string): string {
  const value = text(env, name);
  if (value === undefined) throw new ConfigError(name, 'is required when MOHAR_ESIGN_ESP_URL is set (Aadhaar eSign)');
  return value;
}

function espCertificate(env: Env, cwd: string): string {
  const path = resolve(cwd, required(env, 'MOHAR_ESIGN_ESP_CERT'));
  let pem: string;
  try {
    pem = readFileSync(path, 'latin1');
  } catch (error) {
    throw new ConfigError('MOHAR_ESIGN_ESP_CERT', `cannot read ${path}: ${(error as Error).message}`);
  }
  const block = /-----BEGIN CERTIFICATE-----[A-Za-z0-9+/=\s]+-----END CERTIFICATE-----/.exec(pem);
  if (!block) throw new ConfigError('MOHAR_ESIGN_ESP_CERT', `${path} holds no PEM certificate`);
  return `${block[0]}\n`;
}

function aspKey(env: Env, cwd: string): EsignConfig['aspKey'] {
  const module = text(env, 'MOHAR_ESIGN_ASP_PKCS11_MODULE');
  if (module !== undefined) {
    if (text(env, 'MOHAR_ESIGN_ASP_KEY') !== undefined) {
      throw new ConfigError(
        'MOHAR_ESIGN_ASP_PKCS11_MODULE',
        'set either MOHAR_ESIGN_ASP_KEY or MOHAR_ESIGN_ASP_PKCS11_MODULE, not both',
      );
    }
    const certId = text(env, 'MOHAR_ESIGN_ASP_PKCS11_CERT_ID');
    if (certId === undefined || !/^[0-9a-fA-F:]+$/.test(certId)) {
      throw new ConfigError(
        'MOHAR_ESIGN_ASP_PKCS11_CERT_ID',
        'must be the hex CKA_ID of the ASP certificate on the token',
      );
    }
    const pin = env.MOHAR_ESIGN_ASP_PKCS11_PIN;
    if (pin === undefined || pin === '') {
      throw new ConfigError('MOHAR_ESIGN_ASP_PKCS11_PIN', 'the token PIN is needed: requests are signed unattended');
    }
    return { pkcs11: { module: resolve(cwd, module), token: text(env, 'MOHAR_ESIGN_ASP_PKCS11_TOKEN'), certId, pin } };
  }
  const path = resolve(cwd, required(env, 'MOHAR_ESIGN_ASP_KEY'));
  try {
    readFileSync(path);
  } catch (error) {
    throw new ConfigError(
      'MOHAR_ESIGN_ASP_KEY',
      `cannot read the ASP PKCS#12 file ${path}: ${(error as Error).message}`,
    );
  }
  return { pkcs12: path, passphrase: env.MOHAR_ESIGN_ASP_KEY_PASSPHRASE ?? '' };
}

export function esignConfig(env: Env, cwd: string): EsignConfig | undefined {
  const espUrl = httpUrl(env, 'MOHAR_ESIGN_ESP_URL');
  if (espUrl === undefined) {
    const stray = ['MOHAR_ESIGN_ASP_ID', 'MOHAR_ESIGN_ASP_KEY', 'MOHAR_ESIGN_ESP_CERT', 'MOHAR_ESIGN_STATUS_URL'].find(
      (n) => text(env, n) !== undefined,
    );
    if (stray) throw new ConfigError('MOHAR_ESIGN_ESP_URL', `is required when ${stray} is set (Aadhaar eSign)`);
    return undefined;
  }
  const aspId = required(env, 'MOHAR_ESIGN_ASP_ID');
  if (!/^[\w.-]{1,64}$/.test(aspId)) {
    throw new ConfigError(
      'MOHAR_ESIGN_ASP_ID',
      `must be the ASP id the ESP issued (letters, digits, . _ -) (got "${aspId}")`,
    );
  }
  const authMode = (text(env, 'MOHAR_ESIGN_AUTH_MODE') ?? '1') as EsignAuthMode;
  if (!ESIGN_AUTH_MODES.includes(authMode)) {
    throw new ConfigError('MOHAR_ESIGN_AUTH_MODE', `must be 1 (OTP), 2 (fingerprint) or 3 (iris) (got "${authMode}")`);
  }
  return {
    espUrl,
    statusUrl: httpUrl(env, 'MOHAR_ESIGN_STATUS_URL'),
    aspId,
    aspKey: aspKey(env, cwd),
    espCertificatePem: espCertificate(env, cwd),
    authMode,
  };
}

/**
 * MOHAR_ESIGN_SANDBOX: the ESP simulator built into the server (/sandbox/esp/…) for test data (envelopes made
 * with a qsk_test_ key). On by default, so integrators try Aadhaar signing without ESP credentials; 0 turns it
 * off (test data is then refused like unconfigured live data). Test data never goes to a real ESP.
 */
export function esignSandboxEnabled(env: Env): boolean {
  const raw = (text(env, 'MOHAR_ESIGN_SANDBOX') ?? '1').toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(
    'MOHAR_ESIGN_SANDBOX',
    `must be 1 (the built-in ESP simulator for test data) or 0 (off) (got "${raw}")`,
  );
}
