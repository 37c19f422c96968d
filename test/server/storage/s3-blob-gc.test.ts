/**
 * The blob collector on an S3 bucket (s3rver, started here), through a real server: orphans older than the grace
 * period are deleted, every blob a row names is kept and still reads back whole.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { collectUnreferencedBlobs } from '../../../server/storage/blob-gc.js';
import { sha256Hex } from '../../../server/storage/blobs.js';
import { S3BlobStore } from '../../../server/storage/s3-blobs.js';
import { blobIntegrity } from '../../support/blob-integrity.js';
import { DATABASES } from '../../support/databases.js';
import { makeDraft, sendDraft } from '../../support/envelopes.js';
import { startTestS3, type TestS3 } from '../../support/s3.js';
import { useTestServer } from '../../support/server.js';

for (const kind of DATABASES) {
  describe(`blob collector on S3 with ${kind}`, () => {
    let s3: TestS3;
    const env: Record<string, string> = {};
    before(async () => {
      s3 = await startTestS3();
      Object.assign(env, s3.env);
    });
    after(() => s3.close());
    const t = useTestServer(kind, env);

    test('the server stores its PDFs in the bucket', async () => {
      assert.ok(t.server.ctx.blobs instanceof S3BlobStore);
      const draft = await makeDraft(t.server, t.account.key, {
        recipients: [{ name: 'Asha', email: 'a@example.com' }],
      });
      assert.ok(await t.server.ctx.blobs.has(sha256Hex(draft.pdf)));
    });

    test('orphans past the grace period are deleted; referenced blobs are kept', async () => {
      const draft = await makeDraft(t.server, t.account.key, {
        recipients: [{ name: 'Ravi', email: 'r@example.com' }],
      });
      await sendDraft(t.server, t.account.key, draft);
      const orphan = await t.server.ctx.blobs.put(Buffer.from(`%PDF-1.7 orphan ${kind} ${Date.now()}`));

      const early = await collectUnreferencedBlobs(t.server.ctx.db, t.server.ctx.blobs, { now: new Date() });
      assert.deepEqual(early.deleted, [], 'within the grace period nothing is deleted');

      const later = await collectUnreferencedBlobs(t.server.ctx.db, t.server.ctx.blobs, {
        now: new Date(Date.now() + 2 * 3_600_000),
      });
      assert.deepEqual(later.deleted, [orphan]);
      const integrity = await blobIntegrity(t.server);
      assert.deepEqual(integrity, { missing: [], corrupt: [], unreferenced: [], temporaryFiles: [] });
      assert.deepEqual(await t.server.ctx.blobs.get(sha256Hex(draft.pdf)), draft.pdf);
    });
  });
}
