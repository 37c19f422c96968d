/**
 * Migration 0023: POST /verify finds a completed document by envelope_documents.current_sha256, and an index serves
 * that lookup on both databases (the SQLite plan names it; on PostgreSQL pg_indexes lists it). The lookup itself
 * still recognises the completed document.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { DATABASES } from '../../support/databases.js';
import { startTestServer, type TestServer } from '../../support/server.js';
import { completedDocument, type CompletedDocument } from '../../support/verify-fixtures.js';

const INDEX = 'envelope_documents_current_sha256';

for (const kind of DATABASES) {
  describe(`the /verify lookup index on ${kind}`, () => {
    let server: TestServer;
    let completed: CompletedDocument;
    before(async () => {
      server = await startTestServer(kind);
      const account = await server.newAccount();
      completed = await completedDocument(server, account.key);
    });
    after(() => server?.close());

    test('the index exists on envelope_documents.current_sha256', async () => {
      if (kind === 'sqlite') {
        const rows = await sql<{ tbl_name: string; sql: string }>`
          select tbl_name, sql from sqlite_master where type = 'index' and name = ${INDEX}`.execute(server.ctx.db);
        assert.equal(rows.rows.length, 1);
        assert.equal(rows.rows[0]!.tbl_name, 'envelope_documents');
        assert.match(rows.rows[0]!.sql, /\(\s*"?current_sha256"?\s*\)/);
        const plan = await sql<{ detail: string }>`
          explain query plan select envelope_id from envelope_documents where current_sha256 = ${'0'.repeat(64)}`.execute(
          server.ctx.db,
        );
        assert.ok(
          plan.rows.some((row) => row.detail.includes(INDEX)),
          plan.rows.map((r) => r.detail).join('; '),
        );
      } else {
        const rows = await sql<{ tablename: string; indexdef: string }>`
          select tablename, indexdef from pg_indexes where indexname = ${INDEX}`.execute(server.ctx.db);
        assert.equal(rows.rows.length, 1);
        assert.equal(rows.rows[0]!.tablename, 'envelope_documents');
        assert.match(rows.rows[0]!.indexdef, /\(current_sha256\)/);
      }
    });

    test('POST /verify still recognises the completed document by its hash', async () => {
      const response = await server.app.inject({
        method: 'POST',
        url: '/verify',
        headers: { 'content-type': 'application/pdf' },
        payload: completed.pdf,
      });
      assert.equal(response.statusCode, 200, response.body);
      const report = response.json() as { mohar_envelope: { envelope_id: string } | null };
      assert.equal(report.mohar_envelope?.envelope_id, completed.envelopeId);
    });
  });
}
