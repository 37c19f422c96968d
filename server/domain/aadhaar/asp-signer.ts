/**
 * The ASP key that signs every Esign request (and EsignStatus query): the PKCS#12 of MOHAR_ESIGN_ASP_KEY,
 * read on first use and kept. A failed load is not remembered, so fixing the file needs no restart.
 */
import { readFile } from 'node:fs/promises';
import { MoharError } from '../../../common/errors.js';
import { softwareSigner } from '../../../pdf/cms/index.js';
import type { SignatureProvider } from '../../../pdf/sign/ports.js';
import type { EsignConfig } from '../../config-esign.js';

/** One per configuration (a Config is parsed once per server). */
const loaded = new WeakMap<EsignConfig, Promise<SignatureProvider>>();

async function load(key: EsignConfig['aspKey']): Promise<SignatureProvider> {
  let file: Buffer;
  try {
    file = await readFile(key.pkcs12);
  } catch (error) {
    throw new MoharError('esign_unavailable', `cannot read the ASP key ${key.pkcs12} (MOHAR_ESIGN_ASP_KEY): ${(error as Error).message}`, { cause: error });
  }
  try {
    return await softwareSigner({ pkcs12: file, passphrase: key.passphrase });
  } catch (error) {
    throw new MoharError('esign_unavailable', `the ASP key ${key.pkcs12} (MOHAR_ESIGN_ASP_KEY, MOHAR_ESIGN_ASP_KEY_PASSPHRASE) cannot be used: ${(error as Error).message}`, { cause: error });
  } finally {
    file.fill(0);
  }
}

export function aspSigner(esign: EsignConfig): Promise<SignatureProvider> {
  let signer = loaded.get(esign);
  if (!signer) {
    signer = load(esign.aspKey);
    loaded.set(esign, signer);
    signer.catch(() => loaded.delete(esign));
  }
  return signer;
}
