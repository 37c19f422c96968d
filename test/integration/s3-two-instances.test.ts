/**
 * Two `mohar serve` processes sharing one PostgreSQL database and one S3 bucket (s3rver, started here): an envelope
 * uploaded on one is signed and completed on the other, and both download the same bytes, which are in the bucket
 * under their SHA-256 and in no `blobs` table row.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { connectStorage } from '../../server/storage/connect.js';
import { S3BlobStore, s3ClientFor } from '../../server/storage/s3-blobs.js';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';
import { makePdf } from '../support/pdf-fixtures.js';
import { call, serveProcess } from '../support/process-server.js';
import { startTestS3, type TestS3 } from '../support/s3.js';
import { API, multipartBody } from '../support/server.js';
import { PROCESS_ADMIN, processApiKey } from '../server/bulk/helpers.js';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('two server instances on one PostgreSQL database and one S3 bucket', () => {
  let s3: TestS3;
  let database: TestDatabase;
  const children: ChildProcess[] = [];
  let one: string;
  let two: string;

  before(async () => {
    s3 = await startTestS3();
    database = await createTestDatabase('postgres');
    // One after the other: the first runs the migrations and makes the first account.
    for (const urls of [0, 1]) {
      const server = await serveProcess(database, { ...PROCESS_ADMIN, ...s3.env });
      children.push(server.child);
      if (urls === 0) one = server.url;
      else two = server.url;
    }
  });
  after(async () => {
    for (const child of children) child.kill('SIGTERM');
    await database?.drop();
    await s3?.close();
  });

  test('upload on one, sign and complete on the other, download byte-identical from both', async () => {
    const key = await processApiKey(one);
    const created = await call(one, 'POST', `${API}/envelopes`, {
      key,
      json: { title: 'Shared bucket', recipients: [{ name: 'Asha', email: 'asha@example.com' }] },
    });
    assert.equal(created.status, 201, created.bytes.toString());
    const envelopeId = created.json().id as string;
    const recipientId = created.json().recipients[0].recipient_id as string;
    const pdf = makePdf({ pages: 2 });
    const upload = multipartBody([{ field: 'file', filename: 'agreement.pdf', bytes: pdf }]);
    const document = await call(one, 'POST', `${API}/envelopes/${envelopeId}/documents`, {
      key,
      body: upload.body,
      contentType: upload.contentType,
    });
    assert.equal(document.status, 201, document.bytes.toString());
    const documentId = document.json().document_id as string;

    // The other instance reads the uploaded bytes from the bucket.
    const content = await call(two, 'GET', `${API}/documents/${documentId}/content`, { key });
    assert.equal(content.status, 200);
    assert.ok(content.bytes.equals(pdf), 'the upload, byte for byte, from the other instance');

    const field = { recipient_id: recipientId, field_type: 1, page_number: 1, x: 40, y: 40, width: 200, height: 50 };
    const fields = await call(two, 'PUT', `${API}/envelopes/${envelopeId}/documents/${documentId}/fields`, {
      key,
      json: { fields: [field] },
    });
    assert.equal(fields.status, 200, fields.bytes.toString());
    assert.equal((await call(two, 'POST', `${API}/envelopes/${envelopeId}/send`, { key })).status, 200);
    const session = await call(two, 'POST', `${API}/envelopes/${envelopeId}/signing-sessions`, {
      key,
      json: { recipient_id: recipientId, mode: 'redirect' },
    });
    assert.equal(session.status, 201, session.bytes.toString());
    const link = (session.json().signing_url as string).split('/sign/')[1]!;
    const signed = await call(two, 'POST', `${API}/signing/${link}`, {
      json: { action: 'sign', consent: true, signature: { kind: 'typed', text: 'Asha' } },
    });
    assert.equal(signed.status, 200, signed.bytes.toString());
    assert.equal(signed.json().envelope_status, 'completed');

    const download = (url: string) =>
      call(url, 'GET', `${API}/envelopes/${envelopeId}/documents/${documentId}/download`, { key });
    const [fromOne, fromTwo] = await Promise.all([download(one), download(two)]);
    assert.equal(fromOne.status, 200, fromOne.bytes.toString());
    assert.equal(fromTwo.status, 200, fromTwo.bytes.toString());
    assert.ok(fromOne.bytes.equals(fromTwo.bytes), 'both instances answer the same bytes');
    assert.ok(fromOne.bytes.subarray(0, pdf.length).equals(pdf), 'the signed PDF extends the upload');
    assert.ok(fromOne.bytes.length > pdf.length);

    // The bytes live in the bucket under their SHA-256, not in PostgreSQL.
    const client = s3ClientFor(s3.settings);
    const bucket = new S3BlobStore(client, s3.settings.bucket);
    assert.ok((await bucket.get(sha256(fromOne.bytes))).equals(fromOne.bytes));
    assert.ok((await bucket.get(sha256(pdf))).equals(pdf));
    client.destroy();
    const storage = connectStorage({ databaseUrl: database.databaseUrl, dataDir: database.dataDir, poolSize: 1 });
    try {
      const rows = await storage.db.selectFrom('blobs').select('sha256').execute();
      assert.deepEqual(rows, [], 'no PDF in the blobs table');
      const current = await storage.db
        .selectFrom('envelope_documents')
        .select('current_sha256')
        .where('envelope_id', '=', envelopeId)
        .executeTakeFirstOrThrow();
      assert.equal(current.current_sha256, sha256(fromOne.bytes));
    } finally {
      await storage.close();
    }
  });

  test('a server whose bucket does not answer does not start, and says why', async () => {
    await assert.rejects(
      serveProcess(database, { ...PROCESS_ADMIN, ...s3.env, MOHAR_S3_BUCKET: 'no-such-bucket' }),
      /the blob store \(MOHAR_BLOB_STORE=s3\) does not answer: .*HTTP 404/,
    );
  });
});
