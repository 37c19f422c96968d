/**
 * native/: USB DSC tokens over PKCS#11 (pkcs11js), and nothing else (no HTTP, no database, no Electron,
 * no pdf/). Every failure is a MoharError with a stable code:
 * module_load_failed, token_not_present, token_removed, pin_incorrect (extra.pinCountLow / pinFinalTry),
 * pin_locked, pin_expired, key_not_found, mechanism_not_supported, certificate_expired, pkcs11_error.
 *
 *   const candidates = findModules({ platform: process.platform, extraPaths });
 *   const { modules, failures } = await openModules(candidates.map((c) => c.path));
 *   const tokens = await modules[0].listTokens();
 *   const certs = await modules[0].listCertificates({ serial: tokens[0].serial });
 *   const signer = await tokenSigner({ module, token: { serial }, certId: certs[0].certId, pin });
 *   const signature = await signer.sign(signedAttributesDer);   // pdf/ SignatureProvider shape
 *   const watcher = watchTokens(module, { intervalMs: 1000 });   // 'inserted' / 'removed'
 */
export {
  findModules,
  knownModules,
  KNOWN_MODULES,
  modulePlatform,
  type FindModulesOptions,
  type KnownModule,
  type ModuleCandidate,
  type ModulePlatform,
} from './modules.js';
export {
  openModules,
  Pkcs11Module,
  type KeyReference,
  type ListCertificatesOptions,
  type ModuleLoadFailure,
  type RsaMechanismChoice,
  type SignatureMechanism,
  type SignSha256Request,
  type SignSha256Result,
  type TokenCertificate,
  type TokenFlags,
  type TokenInfo,
  type TokenSelector,
  type TokenSession,
} from './pkcs11-module.js';
export {
  buildChain,
  tokenSigner,
  type PinProvider,
  type TokenSignatureProvider,
  type TokenSignerOptions,
} from './signer.js';
export { tokenKey, TokenWatcher, watchTokens, type TokenWatcherEvents, type TokenWatcherOptions } from './watcher.js';
export {
  assertCertificateValid,
  CCA_POLICY_ARC,
  ccaClassOf,
  parseCertificate,
  type CcaClass,
  type CertificateInfo,
  type EcCurve,
  type KeyUsageName,
} from './x509.js';
export { ckrName, translatePkcs11Error, type NativeErrorCode, type Pkcs11ErrorContext } from './errors.js';
export { ecdsaRawToDer, sha256DigestInfo, SHA256_DIGEST_INFO_PREFIX } from './der.js';
