import assert from 'node:assert/strict';
import { chmod, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { isMoharError } from '../../../common/errors.js';
import { openSecretBox, secretBox, SECRET_KEY_FILE } from '../../../server/seal/secret-box.js';

const posix = process.platform !== 'win32';
const KEY_A = 'a'.repeat(16) + 'secret-key-material-for-tests-A';
const KEY_B = 'b'.repeat(16) + 'secret-key-material-for-tests-B';

function unreadable(pattern: RegExp) {
  return (e: unknown) => {
    assert.ok(isMoharError(e, 'seal_key_unreadable'), `expected seal_key_unreadable, got ${String(e)}`);
    assert.match((e as Error).message, pattern);
    return true;
  };
}

/** Changes one character of a base64url part of the box. */
function flip(box: string, part: number): string {
  const parts = box.split('.');
  const text = parts[part]!;
  parts[part] = (text[0] === 'A' ? 'B' : 'A') + text.slice(1);
  return parts.join('.');
}

describe('secret box', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mohar-secret-box-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('round trip with MOHAR_SECRET_KEY: bytes and text come back, the format is versioned, IVs differ', async () => {
    const box = await openSecretBox({ secretKey: KEY_A, dataDir: join(dir, 'unused') });
    assert.equal(box.source, 'MOHAR_SECRET_KEY');
    const bytes = new Uint8Array([0, 1, 2, 250, 255]);
    const sealed = box.seal(bytes, 'row:1');
    assert.match(sealed, /^v1\.[\w-]+\.[\w-]+\.[\w-]+\.[\w-]*$/);
    assert.deepEqual(new Uint8Array(box.open(sealed, 'row:1')), bytes);
    assert.equal(box.open(box.seal('héllo'), undefined).toString('utf8'), 'héllo');
    assert.notEqual(box.seal(bytes, 'row:1'), sealed, 'a fresh IV each time');
    assert.ok(!sealed.includes(Buffer.from(bytes).toString('base64url')));
    // No key file is made when the key comes from the setting.
    await assert.rejects(stat(join(dir, 'unused', SECRET_KEY_FILE)));
  });

  test('the same key material gives the same key (another process, another day)', async () => {
    const sealed = secretBox(Buffer.from(KEY_A), 'one').seal('x');
    assert.equal(secretBox(Buffer.from(KEY_A), 'two').open(sealed).toString(), 'x');
  });

  test('a wrong key fails clearly, naming the key ids, never returning garbage', async () => {
    const sealed = (await openSecretBox({ secretKey: KEY_A, dataDir: dir })).seal('the seal key');
    const other = await openSecretBox({ secretKey: KEY_B, dataDir: dir });
    assert.throws(() => other.open(sealed), unreadable(/encrypted with another secret key .*MOHAR_SECRET_KEY/));
  });

  test('tampered ciphertext, tag, IV or context fail authentication', async () => {
    const box = await openSecretBox({ secretKey: KEY_A, dataDir: dir });
    const sealed = box.seal('a private key, say', 'seal_keys:1');
    for (const part of [2, 3, 4]) {
      assert.throws(() => box.open(flip(sealed, part), 'seal_keys:1'), unreadable(/failed authentication|malformed/));
    }
    assert.throws(() => box.open(sealed, 'seal_keys:2'), unreadable(/failed authentication/), 'moved to another row');
    assert.throws(() => box.open(sealed.slice(0, -4), 'seal_keys:1'), unreadable(/failed authentication/), 'truncated');
    assert.throws(() => box.open('v2.' + sealed.slice(3), 'seal_keys:1'), unreadable(/not in a known format/));
    assert.throws(() => box.open('garbage', 'seal_keys:1'), unreadable(/not in a known format/));
    assert.throws(() => box.open('v1.x.y', 'seal_keys:1'), unreadable(/malformed/));
  });

  test('without MOHAR_SECRET_KEY: a 32-byte key file is created with mode 0600 and reused', async () => {
    const dataDir = join(dir, 'fresh', 'data');
    const box = await openSecretBox({ secretKey: undefined, dataDir });
    const path = join(dataDir, SECRET_KEY_FILE);
    assert.equal(box.source, path);
    const info = await stat(path);
    assert.equal(info.size, 32);
    if (posix) assert.equal(info.mode & 0o777, 0o600);
    const sealed = box.seal('kept');
    const again = await openSecretBox({ secretKey: undefined, dataDir });
    assert.equal(again.keyId, box.keyId);
    assert.equal(again.open(sealed).toString(), 'kept');
    assert.deepEqual((await readdir(dataDir)).sort(), [SECRET_KEY_FILE], 'no temporary files left');
  });

  test('processes starting together agree on one key file', async () => {
    const dataDir = join(dir, 'race');
    const boxes = await Promise.all(Array.from({ length: 8 }, () => openSecretBox({ secretKey: undefined, dataDir })));
    assert.equal(new Set(boxes.map((b) => b.keyId)).size, 1);
    assert.deepEqual(await readdir(dataDir), [SECRET_KEY_FILE]);
  });

  test(
    'a key file readable by others (0644) is refused, with the fix in the message',
    { skip: !posix && 'POSIX modes only' },
    async () => {
      const dataDir = join(dir, 'loose');
      await openSecretBox({ secretKey: undefined, dataDir });
      const path = join(dataDir, SECRET_KEY_FILE);
      await chmod(path, 0o644);
      await assert.rejects(
        openSecretBox({ secretKey: undefined, dataDir }),
        unreadable(new RegExp(`${SECRET_KEY_FILE} has mode 0644.*chmod 600`)),
      );
      await chmod(path, 0o640);
      await assert.rejects(openSecretBox({ secretKey: undefined, dataDir }), unreadable(/mode 0640/));
      await chmod(path, 0o400);
      await openSecretBox({ secretKey: undefined, dataDir });
    },
  );

  test('a key file of the wrong size is refused, not replaced', async () => {
    const dataDir = join(dir, 'short');
    await openSecretBox({ secretKey: undefined, dataDir });
    const path = join(dataDir, SECRET_KEY_FILE);
    await writeFile(path, Buffer.alloc(16, 1), { mode: 0o600 });
    await assert.rejects(
      openSecretBox({ secretKey: undefined, dataDir }),
      unreadable(/exactly 32 bytes \(it holds 16\)/),
    );
    assert.equal((await stat(path)).size, 16);
  });
});
