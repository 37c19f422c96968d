/**
 * The installation seal: a key of Mohar's own that signs what the installation vouches for (the
 * PAdES signature of electronic signatures, sealing completed documents and certificates of
 * completion) when no PKCS#12 seal is configured.
 *
 * At first use Mohar makes, with pkijs over node's WebCrypto (EC P-256, ECDSA with SHA-256):
 *   - a per-installation CA, self-signed: CN "Mohar installation CA <short id>", O <organization>,
 *     basicConstraints cA (pathLen 0), keyUsage keyCertSign + cRLSign, valid 10 years;
 *   - the seal certificate issued by it: CN "Mohar document seal <short id>", keyUsage
 *     digitalSignature + nonRepudiation (critical), no extendedKeyUsage, valid 3 years.
 *     (An EKU of documentSigning 1.3.6.1.4.1.311.10.3.12 alone makes NSS, and so poppler's pdfsig,
 *     report "Unknown issue with Certificate" instead of the untrusted issuer; without an EKU
 *     only the missing trust anchor is reported. Acrobat accepts certificates without an EKU.)
 * Both start 5 minutes in the past, to tolerate clock differences between instances.
 *
 * The CA's private key is generated non-extractable, used once to issue the seal certificate and
 * dropped: it is never stored, so a stolen database cannot mint further certificates under the
 * installation CA. The consequence is that renewal (the seal expires after 3 years) needs a new CA,
 * i.e. a new trust anchor for relying parties; renewal and rotation are future work (the `active`
 * flag and `kind` column leave room for them). The CA publishes no CRL or OCSP, so seals made with
 * it are B-B or B-T: pdf/cms's gatherValidationData refuses B-LT/B-LTA (validation_data_unavailable)
 * for a seal certificate without revocation data. A PKCS#12 seal from a real CA has no such limit.
 *
 * The seal is one row of `seal_keys` (kind 'installation', active 1): certificate and chain as
 * base64 DER, the PKCS#8 private key encrypted with the secret box (bound to the row id). A partial
 * unique index allows one active row per kind, so server instances that start together on one
 * PostgreSQL database race to insert and the losers read the winner's seal.
 */
import { createPrivateKey, randomBytes, randomUUID, webcrypto } from 'node:crypto';
import type { Kysely } from 'kysely';
import { MoharError, isMoharError } from '../../common/errors.js';
import { softwareSigner, type SignatureProvider } from '../../pdf/index.js';
import { isUniqueViolation } from '../storage/connect.js';
import type { Database, SealKeysTable } from '../storage/schema.js';
import { addYears, makeCertificate, name } from './certificate-builder.js';
import type { SecretBox } from './secret-box.js';

const CA_YEARS = 10;
const SEAL_YEARS = 3;
const BACKDATE_MS = 5 * 60 * 1000;
const EC_KEY = { name: 'ECDSA', namedCurve: 'P-256' } as const;

export interface InstallationSealOptions {
  /** O= in both certificates' subjects. Default "Mohar". */
  readonly organization?: string;
  /** Clock for the certificates' validity and created_at. Default: the system clock. */
  readonly now?: () => Date;
  /**
   * installation (default) or test: the test seal of test envelopes, a separate CA and key whose subjects say
   * TEST and "no legal effect", so nothing sealed with it can pass for the installation's seal.
   */
  readonly kind?: SealKind;
}

export type SealKind = SealKeysTable['kind'];

/** The stored seal's public part (no key). */
export interface InstallationSealInfo {
  readonly id: string;
  /** DER of the seal certificate. */
  readonly certificate: Uint8Array;
  /** DER certificates above it: [installation CA]. */
  readonly chain: readonly Uint8Array[];
  readonly createdAt: string;
}

export interface InstallationSeal extends InstallationSealInfo {
  readonly signer: SignatureProvider;
  /** True when this call made the seal (first start). */
  readonly created: boolean;
}

function unreadable(message: string, cause?: unknown): MoharError {
  return new MoharError('seal_key_unreadable', message, cause === undefined ? {} : { cause });
}

async function activeRow(db: Kysely<Database>, kind: SealKind = 'installation'): Promise<SealKeysTable | undefined> {
  return db.selectFrom('seal_keys').selectAll().where('kind', '=', kind).where('active', '=', 1).executeTakeFirst();
}

function infoOf(row: SealKeysTable): InstallationSealInfo {
  let chain: unknown;
  try {
    chain = JSON.parse(row.chain);
  } catch (error) {
    throw unreadable(`the stored installation seal ${row.id} has an unreadable chain`, error);
  }
  if (!Array.isArray(chain) || !chain.every((c) => typeof c === 'string')) {
    throw unreadable(`the stored installation seal ${row.id} has an unreadable chain`);
  }
  return {
    id: row.id,
    certificate: new Uint8Array(Buffer.from(row.certificate, 'base64')),
    chain: chain.map((c: string) => new Uint8Array(Buffer.from(c, 'base64'))),
    createdAt: row.created_at,
  };
}

/** The active installation seal's certificates, without touching its key; undefined before first start. */
export async function findInstallationSeal(db: Kysely<Database>): Promise<InstallationSealInfo | undefined> {
  const row = await activeRow(db);
  return row ? infoOf(row) : undefined;
}

/** AAD for the secret box: the key belongs to this row and no other. */
function keyContext(id: string): string {
  return `seal_keys:${id}:private_key`;
}

async function signerFromRow(row: SealKeysTable, box: SecretBox, created: boolean): Promise<InstallationSeal> {
  const info = infoOf(row);
  const pkcs8 = box.open(row.private_key, keyContext(row.id));
  let signer: SignatureProvider;
  try {
    const keyPem = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }).export({
      format: 'pem',
      type: 'pkcs8',
    });
    signer = await softwareSigner({ keyPem, certificate: info.certificate, chain: [...info.chain] });
  } catch (error) {
    if (isMoharError(error, 'seal_key_unreadable')) throw error;
    throw unreadable(`the stored installation seal ${row.id} cannot be used: ${(error as Error).message}`, error);
  } finally {
    pkcs8.fill(0);
  }
  return { ...info, signer, created };
}

/**
 * Loads the active installation seal, creating it on first use. Safe to call from several processes
 * at once: one seal is created, the others read it.
 * Errors: MoharError('seal_key_unreadable') when the stored key cannot be decrypted (wrong or missing
 * MOHAR_SECRET_KEY / secret.key) or does not match its certificate. A seal is never replaced silently.
 */
export async function loadInstallationSeal(
  db: Kysely<Database>,
  box: SecretBox,
  options: InstallationSealOptions = {},
): Promise<InstallationSeal> {
  const kind = options.kind ?? 'installation';
  const existing = await activeRow(db, kind);
  if (existing) return signerFromRow(existing, box, false);

  const row = await createSealRow(box, options);
  try {
    await db.insertInto('seal_keys').values(row).execute();
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const winner = await activeRow(db, kind);
    if (!winner) throw error;
    return signerFromRow(winner, box, false);
  }
  return signerFromRow(row, box, true);
}

async function createSealRow(box: SecretBox, options: InstallationSealOptions): Promise<SealKeysTable> {
  const now = (options.now ?? (() => new Date()))();
  const kind = options.kind ?? 'installation';
  const test = kind === 'test';
  const organization = `${options.organization?.trim() || 'Mohar'}${test ? ' TEST' : ''}`;
  const id = randomUUID();
  const shortId = randomBytes(4).toString('hex');
  const notBefore = new Date(now.getTime() - BACKDATE_MS);
  const caName = name(
    organization,
    test ? `Mohar TEST CA - no legal effect ${shortId}` : `Mohar installation CA ${shortId}`,
  );

  // The CA key cannot be exported and is dropped when this function returns.
  const caKeys = await webcrypto.subtle.generateKey(EC_KEY, false, ['sign', 'verify']);
  const sealKeys = await webcrypto.subtle.generateKey(EC_KEY, true, ['sign', 'verify']);
  const ca = await makeCertificate({
    subject: caName,
    issuer: caName,
    publicKey: caKeys.publicKey,
    issuerKey: caKeys.privateKey,
    issuerKeyId: undefined,
    notBefore,
    notAfter: addYears(notBefore, CA_YEARS),
    ca: true,
  });
  const seal = await makeCertificate({
    subject: name(
      organization,
      test ? `Mohar TEST seal - no legal effect ${shortId}` : `Mohar document seal ${shortId}`,
    ),
    issuer: caName,
    publicKey: sealKeys.publicKey,
    issuerKey: caKeys.privateKey,
    issuerKeyId: ca.keyId,
    notBefore,
    notAfter: addYears(notBefore, SEAL_YEARS),
    ca: false,
  });
  const pkcs8 = new Uint8Array(await webcrypto.subtle.exportKey('pkcs8', sealKeys.privateKey));
  try {
    return {
      id,
      kind,
      certificate: Buffer.from(seal.der).toString('base64'),
      chain: JSON.stringify([Buffer.from(ca.der).toString('base64')]),
      private_key: box.seal(pkcs8, keyContext(id)),
      created_at: now.toISOString(),
      active: 1,
    };
  } finally {
    pkcs8.fill(0);
  }
}
