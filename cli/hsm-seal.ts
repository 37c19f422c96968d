/**
 * The seal on a PKCS#11 token or HSM (MOHAR_SEAL_PKCS11_*): opened here, in the CLI, because server/ may
 * not import native/. The PIN comes from the settings: an unattended server has nobody to type it.
 */
import { MoharError } from '../common/errors.js';
import { Pkcs11Module, tokenSigner } from '../native/index.js';
import type { Config } from '../server/config.js';
import type { SealSource } from '../server/seal/load-seal.js';

export async function hsmSeal(
  config: NonNullable<Config['sealPkcs11']>,
  setting = 'MOHAR_SEAL_PKCS11_MODULE',
): Promise<{ seal: SealSource; close: () => Promise<void> }> {
  const module = await Pkcs11Module.open(config.module);
  const tokens = (await module.listTokens()).filter(
    (t) => t.initialized && (config.token === undefined || t.label === config.token),
  );
  const token = tokens[0];
  if (!token) {
    await module.close();
    throw new MoharError(
      'token_not_present',
      `no token${config.token ? ` labelled "${config.token}"` : ''} in ${config.module} (${setting})`,
    );
  }
  const signer = await tokenSigner({
    module,
    token: { serial: token.serial },
    certId: config.certId,
    pin: () => config.pin,
  });
  return { seal: async () => signer, close: () => module.close() };
}
