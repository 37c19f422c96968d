/**
 * Which key seals for this installation:
 *   1. the PKCS#12 file named by MOHAR_SEAL_P12 (passphrase MOHAR_SEAL_P12_PASSPHRASE), when set;
 *   2. otherwise the installation seal (server/seal/installation-seal.ts), created at first call.
 *
 * Callers receive a `SignatureProvider` and nothing else, so the seal can live elsewhere: `SealSource`
 * is the port through which the CLI can later hand the server a PKCS#11 (HSM) seal instead of these
 * two, e.g. `() => tokenSigner({ module, token, certId, pin })` from native/ (server/ may not import
 * native/, so the wiring belongs to the CLI).
 *
 * Errors: MoharError('seal_key_unreadable') when the configured file or the stored seal cannot be
 * read or used (the message names the file or the setting), MoharError('seal_expired') when the seal
 * certificate is not valid now (seals made with it would not validate).
 */
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { MoharError } from '../../common/errors.js';
import { softwareSigner, type SignatureProvider } from '../../pdf/index.js';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { Database } from '../storage/schema.js';
import { loadInstallationSeal, type InstallationSealOptions } from './installation-seal.js';
import { openSecretBox } from './secret-box.js';

/**
 * Supplies the seal signer on demand. The server's default is `sealSource(ctx)`; the CLI may inject another (PKCS#11).
 */
export type SealSource = () => Promise<SignatureProvider>;

/**
 * What the seal needs (the domain's Context is one): named here, not picked from the Context, so that seal/ stays
 * below the domain and the seal can be built before the Context exists.
 */
export interface SealContext {
  readonly db: Kysely<Database>;
  readonly config: Config;
  readonly now: () => Date;
}

export type LoadSealOptions = Pick<InstallationSealOptions, 'organization'>;

/** Loads the seal signer anew (reads the PKCS#12 or the database each time). */
export async function loadSealSigner(ctx: SealContext, options: LoadSealOptions = {}): Promise<SignatureProvider> {
  const { config } = ctx;
  const signer =
    config.sealP12 !== undefined
      ? await pkcs12Seal(config.sealP12, config.sealP12Passphrase)
      : (await loadInstallationSeal(ctx.db, await openSecretBox(config), { ...options, now: ctx.now })).signer;
  checkValidity(validityOf(signer.certificate), ctx.now(), config.sealP12 ?? 'the installation seal');
  return signer;
}

/**
 * A SealSource that loads once and then reuses the signer. A failed load is not remembered: the next
 * call tries again (e.g. after the operator fixed the file). The validity period is checked on every call.
 */
export function sealSource(ctx: SealContext, options: LoadSealOptions = {}): SealSource {
  let loading: Promise<{ signer: SignatureProvider; validity: Validity }> | undefined;
  return async () => {
    if (!loading) {
      loading = loadSealSigner(ctx, options).then((signer) => ({ signer, validity: validityOf(signer.certificate) }));
      loading.catch(() => {
        loading = undefined;
      });
    }
    const { signer, validity } = await loading;
    // The dates were read once, at load: this runs on every signature.
    checkValidity(validity, ctx.now(), ctx.config.sealP12 ?? 'the installation seal');
    return signer;
  };
}

/**
 * The test seal of test envelopes (qsk_test_ keys, issue 16): always a self-made seal of kind 'test' in
 * seal_keys, with its own CA, whose subjects say TEST and "no legal effect". Never the configured PKCS#12 nor
 * the installation seal, so a test document cannot carry the seal relying parties trust. Loads once, like
 * sealSource.
 */
export function testSealSource(ctx: SealContext, options: LoadSealOptions = {}): SealSource {
  let loading: Promise<SignatureProvider> | undefined;
  return async () => {
    if (!loading) {
      loading = openSecretBox(ctx.config).then(
        async (box) => (await loadInstallationSeal(ctx.db, box, { ...options, now: ctx.now, kind: 'test' })).signer,
      );
      loading.catch(() => {
        loading = undefined;
      });
    }
    return loading;
  };
}

interface Validity {
  readonly from: Date;
  readonly to: Date;
  readonly subject: string;
}

function validityOf(der: Uint8Array): Validity {
  const cert = new X509Certificate(der);
  return { from: new Date(cert.validFrom), to: new Date(cert.validTo), subject: cert.subject.replace(/\n/g, ', ') };
}

async function pkcs12Seal(path: string, passphrase: string | undefined): Promise<SignatureProvider> {
  let file: Buffer;
  try {
    file = await readFile(path);
  } catch (error) {
    throw new MoharError(
      'seal_key_unreadable',
      `cannot read the seal PKCS#12 file ${path} (MOHAR_SEAL_P12): ${(error as Error).message}`,
      { cause: error },
    );
  }
  try {
    return await softwareSigner({ pkcs12: file, passphrase: passphrase ?? '' });
  } catch (error) {
    throw new MoharError(
      'seal_key_unreadable',
      `the seal PKCS#12 file ${path} (MOHAR_SEAL_P12, MOHAR_SEAL_P12_PASSPHRASE) cannot be used: ${(error as Error).message}`,
      { cause: error },
    );
  } finally {
    file.fill(0);
  }
}

function checkValidity({ from, to, subject }: Validity, now: Date, what: string): void {
  if (now < from || now > to) {
    throw new MoharError(
      'seal_expired',
      `the seal certificate of ${what} (${subject}) is valid from ${from.toISOString()} to ${to.toISOString()}, not at ${now.toISOString()}; seal renewal is not automatic yet`,
    );
  }
}
