/**
 * How the S3 store's put answers the ways stores treat `If-None-Match: *` (s3rver ignores it, so the answers other
 * stores give are played by a stand-in client): 412 stored by someone else, 409 a write in progress, 501 unsupported.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CopyObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { S3BlobStore } from '../../../server/storage/s3-blobs.js';

function failure(status: number, name: string): Error {
  return Object.assign(new Error(name), { name, $metadata: { httpStatusCode: status } });
}

/** A client whose object is absent and whose first (conditional) PUT fails as told; records the PUTs. */
function standIn(firstPut: Error | undefined) {
  const puts: { conditional: boolean }[] = [];
  const client = {
    async send(command: unknown) {
      if (command instanceof CopyObjectCommand) throw failure(404, 'NoSuchKey');
      if (command instanceof PutObjectCommand) {
        puts.push({ conditional: command.input.IfNoneMatch === '*' });
        if (puts.length === 1 && firstPut) throw firstPut;
        return {};
      }
      throw new Error('unexpected command');
    },
  };
  return { store: new S3BlobStore(client as unknown as S3Client, 'bucket'), puts };
}

describe('S3 store: the conditional put', () => {
  test('a new blob is written once, conditionally', async () => {
    const { store, puts } = standIn(undefined);
    await store.put(Buffer.from('new'));
    assert.deepEqual(puts, [{ conditional: true }]);
  });

  test('412: another instance stored the same bytes a moment ago; nothing more to write', async () => {
    const { store, puts } = standIn(failure(412, 'PreconditionFailed'));
    await store.put(Buffer.from('raced'));
    assert.deepEqual(puts, [{ conditional: true }]);
  });

  test('409 (a write in progress) and 501 (no conditional writes): the same bytes are written plainly', async () => {
    for (const answer of [failure(409, 'ConditionalRequestConflict'), failure(501, 'NotImplemented')]) {
      const { store, puts } = standIn(answer);
      await store.put(Buffer.from('again'));
      assert.deepEqual(puts, [{ conditional: true }, { conditional: false }]);
    }
  });

  test("any other failure is the caller's", async () => {
    const { store } = standIn(failure(403, 'AccessDenied'));
    await assert.rejects(store.put(Buffer.from('denied')), { name: 'AccessDenied' });
  });
});
