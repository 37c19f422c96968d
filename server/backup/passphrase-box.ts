/**
 * The backup's keys are encrypted with a key derived from the operator's passphrase: scrypt (node:crypto) for the
 * derivation, AES-256-GCM for the encryption. The parameters travel with the ciphertext, so a later Mohar with
 * stronger defaults still opens an older backup. The additional data binds the ciphertext to the rest of the
 * manifest (its digest): a manifest edited after the backup no longer opens with the right passphrase.
 */
import { createCipheriv, createDecipheriv, randomBytes, scrypt } from 'node:crypto';
import { MoharError } from '../../common/errors.js';

export interface PassphraseBox {
  readonly kdf: { readonly name: 'scrypt'; readonly n: number; readonly r: number; readonly p: number; salt: string };
  readonly cipher: 'aes-256-gcm';
  readonly iv: string;
  readonly tag: string;
  readonly ciphertext: string;
}

/** 2^17 × 8 × 128 bytes = 128 MiB of memory per guess: OWASP's scrypt floor is 2^17 too. */
const DEFAULT_COST = { n: 2 ** 17, r: 8, p: 1 } as const;
/** A manifest is input: refuse parameters that would make opening it take gigabytes or minutes. */
const MAX_N = 2 ** 20;
const KEY_BYTES = 32;

function deriveKey(passphrase: string, kdf: PassphraseBox['kdf']): Promise<Buffer> {
  const maxmem = 128 * kdf.n * kdf.r * 2;
  return new Promise((resolve, reject) =>
    scrypt(
      passphrase.normalize('NFC'),
      Buffer.from(kdf.salt, 'base64'),
      KEY_BYTES,
      { N: kdf.n, r: kdf.r, p: kdf.p, maxmem },
      (error, key) => (error ? reject(error) : resolve(key)),
    ),
  );
}

export async function sealWithPassphrase(
  plaintext: Uint8Array,
  passphrase: string,
  additionalData: string,
): Promise<PassphraseBox> {
  if (passphrase === '') throw new MoharError('bad_request', 'the backup passphrase is empty');
  const kdf = { name: 'scrypt' as const, ...DEFAULT_COST, salt: randomBytes(16).toString('base64') };
  const key = await deriveKey(passphrase, kdf);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(additionalData, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return {
    kdf,
    cipher: 'aes-256-gcm',
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    ciphertext: body.toString('base64'),
  };
}

/** Decrypts, or throws backup_passphrase_incorrect (GCM cannot tell a wrong passphrase from an edited manifest). */
export async function openWithPassphrase(box: PassphraseBox, passphrase: string, additionalData: string) {
  const { kdf } = box;
  const sane = (value: unknown, max: number) =>
    Number.isInteger(value) && (value as number) >= 1 && (value as number) <= max;
  if (
    kdf?.name !== 'scrypt' ||
    !sane(kdf.n, MAX_N) ||
    !sane(kdf.r, 32) ||
    !sane(kdf.p, 16) ||
    box.cipher !== 'aes-256-gcm'
  ) {
    throw new MoharError('backup_invalid', 'the manifest names key-derivation parameters this Mohar does not accept');
  }
  const key = await deriveKey(passphrase, kdf);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(box.iv, 'base64'));
    decipher.setAAD(Buffer.from(additionalData, 'utf8'));
    decipher.setAuthTag(Buffer.from(box.tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(box.ciphertext, 'base64')), decipher.final()]);
  } catch (error) {
    throw new MoharError(
      'backup_passphrase_incorrect',
      'the passphrase does not open the backup keys (wrong passphrase, or the manifest was changed after the backup)',
      { cause: error },
    );
  }
}
