/**
 * The ASP key that signs every Esign request (and EsignStatus query): the PKCS#12 of MOHAR_ESIGN_ASP_KEY,
 * read on first use and kept (a failed load is not remembered, so fixing the file needs no restart), or a
 * key on a PKCS#11 token (MOHAR_ESIGN_ASP_PKCS11_*) that `mohar serve` opens and hands in as ctx.esignAsp.
 */
import { readFile } from 'node:fs/promises';
import { MoharError } from '../../../common/errors.js';
import { softwareSigner, type SignatureProvider } from '../../../pdf/index.js';
import type { EsignConfig } from '../../config-esign.js';
import type { Context } from '../context.js';

/** One per configuration (a Config is parsed once per server). */
const loaded = new WeakMap<EsignConfig, Promise<SignatureProvider>>();

async function load(key: { readonly pkcs12: string; readonly passphrase: string }): Promise<SignatureProvider> {
  let file: Buffer;
  try {
    file = await readFile(key.pkcs12);
  } catch (error) {
    throw new MoharError(
      'esign_unavailable',
      `cannot read the ASP key ${key.pkcs12} (MOHAR_ESIGN_ASP_KEY): ${(error as Error).message}`,
      { cause: error },
    );
  }
  try {
    return await softwareSigner({ pkcs12: file, passphrase: key.passphrase });
  } catch (error) {
    throw new MoharError(
      'esign_unavailable',
      `the ASP key ${key.pkcs12} (MOHAR_ESIGN_ASP_KEY, MOHAR_ESIGN_ASP_KEY_PASSPHRASE) cannot be used: ${(error as Error).message}`,
      { cause: error },
    );
  } finally {
    file.fill(0);
  }
}

/** The ASP signer of these settings; `ctx.esignAsp` when the key is on a PKCS#11 token. */
export function aspSigner(ctx: Pick<Context, 'esignAsp'>, esign: EsignConfig): Promise<SignatureProvider> {
  const key = esign.aspKey;
  if ('pkcs11' in key) {
    if (!ctx.esignAsp) {
      return Promise.reject(
        new MoharError(
          'esign_unavailable',
          `the ASP key is on a PKCS#11 token (${key.pkcs11.module}, MOHAR_ESIGN_ASP_PKCS11_MODULE): it is opened by \`mohar serve\``,
        ),
      );
    }
    return ctx.esignAsp();
  }
  let signer = loaded.get(esign);
  if (!signer) {
    signer = load(key);
    loaded.set(esign, signer);
    signer.catch(() => loaded.delete(esign));
  }
  return signer;
}
