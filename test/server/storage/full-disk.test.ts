/**
 * Issue 33 point 2: a full disk. The data dir (SQLite and the file blob store), and for PostgreSQL a tablespace
 * holding the test database's tables, live on a small tmpfs; a filler file takes every free byte while uploads,
 * envelope creates, signing links and signing acts arrive. Each write (a blob first, or the database only, in
 * the SQLite fast path or a Kysely transaction) either succeeds whole or answers 503 storage_full with
 * Retry-After and a log line; reads keep answering; nothing half-written stays (no row without its blob, no
 * truncated blob, no temporary file, and a blob whose row never came is the blob collector's); once the filler
 * is deleted, the same requests succeed. Without the privilege to mount, the suite says so and skips.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { collectUnreferencedBlobs } from '../../../server/storage/blob-gc.js';
import { DATABASES } from '../../support/databases.js';
import { makeDraft, sendDraft } from '../../support/envelopes.js';
import { makePdf } from '../../support/pdf-fixtures.js';
import { API, startTestServer, type TestAccount, type TestServer } from '../../support/server.js';
import { mountSmallDisk, moveDatabaseOnto, type SmallDisk } from '../../support/small-disk.js';
import { blobIntegrity } from '../../support/blob-integrity.js';

const DISK_MIB = 48;
const HOUR_MS = 60 * 60 * 1000;

/** A PDF of about 40 KB that compresses badly, so that a few of them need fresh space on the disk. */
function bulkyPdf(): Buffer {
  const noise = randomBytes(30_000)
    .toString('base64')
    .match(/.{1,76}/g)!;
  return makePdf({ pages: [{ text: 'Agreement', content: noise.map((line) => `% ${line}`).join('\n') }] });
}

function assertStorageFull(response: LightMyRequestResponse, what: string): void {
  assert.equal(response.statusCode, 503, `${what}: ${response.body}`);
  assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
  assert.equal(response.json().code, 'storage_full');
  assert.equal(response.headers['retry-after'], '60');
}

/**
 * Sends requests until one is refused for want of space (a write may still fit in space already allocated, e.g.
 * a PostgreSQL page with room or the SQLite WAL); every answer before it must be a success. Returns the index of
 * the refused attempt.
 */
async function untilRefused(
  what: string,
  attempts: number,
  send: (attempt: number) => Promise<LightMyRequestResponse>,
): Promise<number> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    const response = await send(attempt);
    if (response.statusCode === 503) {
      assertStorageFull(response, what);
      return attempt;
    }
    assert.ok(response.statusCode < 300, `${what}: ${response.statusCode} ${response.body}`);
  }
  assert.fail(`${what}: ${attempts} attempts on a full disk, none refused`);
}

for (const kind of DATABASES) {
  describe(`a full disk on ${kind}`, () => {
    let disk: SmallDisk | undefined;
    let unavailable = '';
    let server: TestServer | undefined;
    let dropTablespace: (() => Promise<void>) | undefined;

    before(async () => {
      const mounted = await mountSmallDisk(DISK_MIB);
      if ('unavailable' in mounted) {
        unavailable = mounted.unavailable;
        return;
      }
      disk = mounted;
      server = await startTestServer(kind, { MOHAR_DATA_DIR: join(disk.path, 'data') });
      if (kind === 'postgres') {
        // PostgreSQL installs keep blobs in the database: its own files must be on the small disk.
        const moved = await moveDatabaseOnto(disk, server.ctx.config.databaseUrl!);
        if ('unavailable' in moved) unavailable = moved.unavailable;
        else dropTablespace = moved.drop;
      }
    });

    after(async () => {
      await server?.close();
      await dropTablespace?.();
      await disk?.unmount();
    });

    test('writes answer 503 storage_full, reads answer, nothing half-written stays, and all works once space is freed', async (t) => {
      if (!server || !disk || unavailable) {
        t.skip(unavailable);
        return;
      }
      const app = server;
      const account: TestAccount = await app.newAccount();
      const key = account.key;

      // Before the disk fills: signers who have opened their links, a draft, a stored document.
      const signers: { envelopeId: string; documentId: string; token: string }[] = [];
      for (let i = 0; i < 6; i++) {
        const draft = await makeDraft(app, key, {
          recipients: [{ name: `Signer ${i}`, email: `signer${i}@example.com` }],
          pdf: bulkyPdf(),
        });
        await sendDraft(app, key, draft);
        const session = await app.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
          key,
          json: { recipient_id: draft.recipientIds[0], mode: 'redirect' },
        });
        const token = String(session.json().signing_url).split('/sign/')[1]!;
        assert.equal((await app.request('GET', `${API}/signing/${token}`)).statusCode, 200);
        signers.push({ envelopeId: draft.id, documentId: draft.documentId, token });
      }
      const linked = await makeDraft(app, key, { recipients: [{ name: 'Ravi', email: 'ravi@example.com' }] });
      await sendDraft(app, key, linked);
      const newLink = () =>
        app.request('POST', `${API}/envelopes/${linked.id}/signing-sessions`, {
          key,
          json: { recipient_id: linked.recipientIds[0], mode: 'redirect' },
        });
      const stored = bulkyPdf();
      const storedDocument = await app.request('POST', `${API}/documents`, { key, file: { bytes: stored } });
      assert.equal(storedDocument.statusCode, 201, storedDocument.body);
      const storedId = String(storedDocument.json().document_id);

      const filled = await disk.fill();
      assert.ok(filled > 0, 'the filler took the free space');
      assert.ok((await disk.freeBytes()) < 4096, 'the disk is full');

      const refusedUpload = bulkyPdf();
      await untilRefused('upload', 50, (i) =>
        app.request('POST', `${API}/documents`, { key, file: { bytes: i === 0 ? refusedUpload : bulkyPdf() } }),
      );
      await untilRefused('envelope create', 500, (i) =>
        app.request('POST', `${API}/envelopes`, {
          key,
          json: { title: `Full disk ${i}`, recipients: [{ name: 'Asha', email: 'asha@example.com' }] },
        }),
      );
      // A write in a Kysely transaction with no blob (SQLite ends such a transaction itself when the disk is full).
      await untilRefused('signing link', 500, () => newLink());
      const refusedSigner =
        signers[
          await untilRefused('signing act', signers.length, (i) =>
            app.request('POST', `${API}/signing/${signers[i]!.token}`, {
              json: { action: 'sign', consent: true, signature: { kind: 'typed', text: `Signer ${i}` } },
            }),
          )
        ]!;
      assert.ok(
        app.logs.some((line) => line.includes('"code":"storage_full"') && line.includes('no storage space left')),
        'each refusal is logged',
      );

      // Reads still answer while the disk is full, also when the key's last use is due to be recorded.
      app.clock.advance(120);
      const envelope = await app.request('GET', `${API}/envelopes/${refusedSigner.envelopeId}`, { key });
      assert.equal(envelope.statusCode, 200, envelope.body);
      assert.equal(envelope.json().status, 'sent', 'the refused act changed nothing');
      assert.equal((await app.request('GET', `${API}/envelopes`, { key })).statusCode, 200);
      const content = await app.request('GET', `${API}/documents/${storedId}/content`, { key });
      assert.equal(content.statusCode, 200, content.body);
      assert.ok(content.rawPayload.equals(stored));
      const view = await app.request('GET', `${API}/signing/${refusedSigner.token}`);
      assert.equal(view.statusCode, 200, view.body);
      assert.equal(view.json().action, 'sign', 'the refused signer may still sign');

      // Nothing half-written: every row's blob is there, whole; no temporary files.
      const during = await blobIntegrity(app);
      assert.deepEqual(during.missing, [], 'no row without its blob');
      assert.deepEqual(during.corrupt, [], 'no truncated blob');
      assert.deepEqual(during.temporaryFiles, [], 'no temporary file left');
      if (kind === 'sqlite') {
        // Every refused write needed fresh space for its blob or its WAL frames, and the blob comes first.
        assert.deepEqual(during.unreferenced, [], 'no blob without its row');
      }

      await disk.free();
      const upload = await app.request('POST', `${API}/documents`, { key, file: { bytes: refusedUpload } });
      assert.equal(upload.statusCode, 201, upload.body);
      const created = await app.request('POST', `${API}/envelopes`, {
        key,
        json: { title: 'After', recipients: [{ name: 'Asha', email: 'asha@example.com' }] },
      });
      assert.equal(created.statusCode, 201, created.body);
      assert.equal((await newLink()).statusCode, 201);
      const signed = await app.request('POST', `${API}/signing/${refusedSigner.token}`, {
        json: { action: 'sign', consent: true, signature: { kind: 'typed', text: 'Signer' } },
      });
      assert.equal(signed.statusCode, 200, signed.body);
      assert.equal(signed.json().envelope_status, 'completed');
      const download = await app.request(
        'GET',
        `${API}/envelopes/${refusedSigner.envelopeId}/documents/${refusedSigner.documentId}/download`,
        { key },
      );
      assert.equal(download.statusCode, 200, download.body);

      // A blob whose row was refused (written just before the database ran out) is unreferenced: the blob
      // collector removes it once its grace period is over, and then every stored blob belongs to a row.
      // (PostgreSQL: a blob row may fit in a page with room while the row naming it needs a new page.)
      const collected = await collectUnreferencedBlobs(app.ctx.db, app.ctx.blobs, {
        now: new Date(Date.now() + 2 * HOUR_MS),
      });
      assert.deepEqual(
        [...collected.deleted].sort(),
        [...during.unreferenced].sort(),
        'the collector takes the orphans only',
      );
      const afterwards = await blobIntegrity(app);
      assert.deepEqual(afterwards.missing, []);
      assert.deepEqual(afterwards.corrupt, []);
      assert.deepEqual(afterwards.unreferenced, [], 'no blob without its row');
    });
  });
}
