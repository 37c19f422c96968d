/**
 * Secrets at rest (today: the installation seal's private key). AES-256-GCM with a key derived by
 * HKDF-SHA256 from the master key material:
 *
 *   - `config.secretKey` (MOHAR_SECRET_KEY) when set; several server instances sharing one
 *     PostgreSQL database must all be given the same value;
 *   - otherwise a random 32-byte file `secret.key` in the data dir, created on first use with mode
 *     0600 and refused when its mode is wider (group or others may read it). Back it up with the
 *     database: without it the stored secrets cannot be read.
 *
 * Ciphertext format (ASCII, self-describing, versioned):
 *
 *   v1.<key id>.<iv>.<tag>.<ciphertext>      each part base64url without padding
 *
 * The key id is a short public fingerprint of the derived key (a second HKDF output, not the key),
 * so "encrypted with another key" is told apart from "tampered or corrupted". The version, key id
 * and the caller's `context` (e.g. the table row the secret belongs to) are authenticated as
 * additional data, so a ciphertext cannot be moved to another row unnoticed.
 *
 * Every failure to read a secret is MoharError('seal_key_unreadable') with a message that says why;
 * a wrong key never yields garbage (GCM authenticates).
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import { link, mkdir, open, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { MoharError } from '../../common/errors.js';
import type { Config } from '../config.js';

export const SECRET_KEY_FILE = 'secret.key';
const VERSION = 'v1';
const SALT = 'mohar secret box';
const KEY_INFO = 'mohar secret box v1: aes-256-gcm key';
const ID_INFO = 'mohar secret box v1: key id';
const KEY_FILE_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface SecretBox {
  /** Public fingerprint of the key, written into every ciphertext. */
  readonly keyId: string;
  /** Where the key material comes from, for messages: "MOHAR_SECRET_KEY" or the key file's path. */
  readonly source: string;
  /** Encrypts; `context` must be given again, identical, to open. */
  seal(plaintext: Uint8Array | string, context?: string): string;
  /** Decrypts, or throws MoharError('seal_key_unreadable'). */
  open(box: string, context?: string): Buffer;
}

function unreadable(message: string, cause?: unknown): MoharError {
  return new MoharError('seal_key_unreadable', message, cause === undefined ? {} : { cause });
}

function derive(material: Uint8Array, info: string, length: number): Buffer {
  return Buffer.from(hkdfSync('sha256', material, SALT, info, length));
}

/** A secret box over the given master key material (at least 32 bytes of randomness expected). */
export function secretBox(material: Uint8Array, source: string): SecretBox {
  if (material.length === 0) throw unreadable(`the secret key from ${source} is empty`);
  const key = derive(material, KEY_INFO, 32);
  const keyId = derive(material, ID_INFO, 8).toString('base64url');
  const aad = (context: string | undefined): Buffer => Buffer.from(`${VERSION}.${keyId}.${context ?? ''}`, 'utf8');
  return {
    keyId,
    source,
    seal(plaintext, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(aad(context));
      const body = Buffer.concat([
        cipher.update(typeof plaintext === 'string' ? Buffer.from(plaintext, 'utf8') : plaintext),
        cipher.final(),
      ]);
      return [
        VERSION,
        keyId,
        iv.toString('base64url'),
        cipher.getAuthTag().toString('base64url'),
        body.toString('base64url'),
      ].join('.');
    },
    open(box, context) {
      const parts = box.split('.');
      if (parts[0] !== VERSION) {
        throw unreadable(
          `the stored secret is not in a known format (expected "${VERSION}.…", got "${box.slice(0, 8)}…")`,
        );
      }
      const [, boxKeyId, ivText, tagText, bodyText] = parts;
      if (parts.length !== 5 || !boxKeyId || !ivText || !tagText || bodyText === undefined) {
        throw unreadable('the stored secret is malformed (expected 5 dot-separated parts)');
      }
      if (boxKeyId !== keyId) {
        throw unreadable(
          `the stored secret was encrypted with another secret key (key id ${boxKeyId}; the key from ${source} has id ${keyId}). ` +
            'Give this server the MOHAR_SECRET_KEY (or the secret.key file) it was created with; several instances sharing one database need the same MOHAR_SECRET_KEY',
        );
      }
      const iv = Buffer.from(ivText, 'base64url');
      const tag = Buffer.from(tagText, 'base64url');
      if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) {
        throw unreadable('the stored secret is malformed (bad IV or tag length)');
      }
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
        decipher.setAAD(aad(context));
        decipher.setAuthTag(tag);
        return Buffer.concat([decipher.update(Buffer.from(bodyText, 'base64url')), decipher.final()]);
      } catch (error) {
        throw unreadable(
          'the stored secret failed authentication: it was tampered with, corrupted, or belongs to another record',
          error,
        );
      }
    },
  };
}

/**
 * The installation's secret box: MOHAR_SECRET_KEY when set, else the key file in the data dir (created when missing).
 */
export async function openSecretBox(config: Pick<Config, 'secretKey' | 'dataDir'>): Promise<SecretBox> {
  if (config.secretKey !== undefined) return secretBox(Buffer.from(config.secretKey, 'utf8'), 'MOHAR_SECRET_KEY');
  const path = join(config.dataDir, SECRET_KEY_FILE);
  return secretBox(await readOrCreateKeyFile(path), path);
}

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null
    ? ((error as { code?: unknown }).code as string | undefined)
    : undefined;
}

async function readOrCreateKeyFile(path: string): Promise<Buffer> {
  try {
    return await readKeyFile(path);
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error;
  }
  try {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    // Write a complete file under a temporary name, then link it into place: link() fails when the
    // name exists, so of several processes starting at once exactly one key wins and nobody ever
    // reads a half-written file.
    const temporary = `${path}.${randomUUID()}.tmp`;
    const handle = await open(temporary, 'wx', 0o600);
    try {
      await handle.writeFile(randomBytes(KEY_FILE_BYTES));
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await link(temporary, path);
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') throw error;
    } finally {
      await unlink(temporary).catch(() => undefined);
    }
  } catch (error) {
    throw unreadable(`cannot create the secret key file ${path}: ${(error as Error).message}`, error);
  }
  return readKeyFile(path);
}

async function readKeyFile(path: string): Promise<Buffer> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') throw error;
    throw unreadable(`cannot read the secret key file ${path}: ${(error as Error).message}`, error);
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw unreadable(`the secret key file ${path} is not a regular file`);
    if (process.platform !== 'win32' && (info.mode & 0o077) !== 0) {
      const mode = (info.mode & 0o777).toString(8).padStart(4, '0');
      throw unreadable(
        `the secret key file ${path} has mode ${mode}: it must be readable by its owner only (chmod 600 ${path})`,
      );
    }
    const bytes = await handle.readFile();
    if (bytes.length !== KEY_FILE_BYTES) {
      throw unreadable(
        `the secret key file ${path} must hold exactly ${KEY_FILE_BYTES} bytes (it holds ${bytes.length})`,
      );
    }
    return bytes;
  } catch (error) {
    if (error instanceof MoharError) throw error;
    throw unreadable(`cannot read the secret key file ${path}: ${(error as Error).message}`, error);
  } finally {
    await handle.close();
  }
}
