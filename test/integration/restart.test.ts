/**
 * A real `mohar serve` process killed with SIGKILL between two acts continues correctly after restart:
 * the first signature, the routing state and the pending jobs survive; the second act completes the envelope.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, describe, test } from 'node:test';
import { verifyPdf } from '../../pdf/verify/index.js';
import { createTestDatabase, DATABASES, type TestDatabase } from '../support/databases.js';
import { makePdf } from '../support/pdf-fixtures.js';
import { multipartBody } from '../support/server.js';
import { call, serveProcess } from '../support/process-server.js';
import { pdfsigVerdicts } from '../support/validators.js';

const API = '/backend/api/v1';
const LEGACY = '/backend/othercompanyapi';

describe('SIGKILL between two acts', () => {
  const databases: TestDatabase[] = [];
  const children: ChildProcess[] = [];
  after(async () => {
    for (const child of children) child.kill('SIGKILL');
    for (const database of databases) await database.drop();
  });

  for (const kind of DATABASES) {
    test(`on ${kind}: the envelope continues after a restart`, async () => {
      const database = await createTestDatabase(kind);
      databases.push(database);
      let server = await serveProcess(database, {
        MOHAR_ADMIN_EMAIL: 'admin@restart.test',
        MOHAR_ADMIN_PASSWORD: 'restart password 123',
      });
      children.push(server.child);
      const token = (
        await call(server.url, 'POST', `${LEGACY}/auth/login/`, {
          json: { email: 'admin@restart.test', password: 'restart password 123' },
        })
      ).json().access_token;
      const key = (await call(server.url, 'POST', `${LEGACY}/apikey/generate/`, { token })).json().api_key;
      const envelope = (
        await call(server.url, 'POST', `${API}/envelopes`, {
          key,
          json: {
            title: 'Crash-safe',
            recipients: [
              { name: 'First', email: 'first@example.com' },
              { name: 'Second', email: 'second@example.com' },
            ],
          },
        })
      ).json();
      const upload = multipartBody([{ field: 'file', filename: 'a.pdf', bytes: makePdf({ pages: 1 }) }]);
      const documentId = (
        await call(server.url, 'POST', `${API}/envelopes/${envelope.id}/documents`, {
          key,
          body: upload.body,
          contentType: upload.contentType,
        })
      ).json().document_id;
      const [first, second] = envelope.recipients.map((r: { recipient_id: string }) => r.recipient_id);
      const fields = [first, second].map((id, i) => ({
        recipient_id: id,
        field_type: 1,
        page_number: 1,
        x: 40,
        y: 40 + i * 80,
        width: 200,
        height: 50,
      }));
      assert.equal(
        (
          await call(server.url, 'PUT', `${API}/envelopes/${envelope.id}/documents/${documentId}/fields`, {
            key,
            json: { fields },
          })
        ).status,
        200,
      );
      assert.equal((await call(server.url, 'POST', `${API}/envelopes/${envelope.id}/send`, { key })).status, 200);
      const sign = async (url: string, recipientId: string) => {
        const link = (
          await call(url, 'POST', `${API}/envelopes/${envelope.id}/signing-sessions`, {
            key,
            json: { recipient_id: recipientId, mode: 'redirect' },
          })
        )
          .json()
          .signing_url.split('/sign/')[1];
        return call(url, 'POST', `${API}/signing/${link}`, {
          json: { action: 'sign', consent: true, signature: { kind: 'typed', text: 'signed' } },
        });
      };
      assert.equal((await sign(server.url, first)).json().envelope_status, 'sent');

      server.child.kill('SIGKILL');
      await new Promise((resolve) => server.child.once('exit', resolve));
      server = await serveProcess(database, {
        MOHAR_ADMIN_EMAIL: 'admin@restart.test',
        MOHAR_ADMIN_PASSWORD: 'restart password 123',
      });
      children.push(server.child);

      const status = (await call(server.url, 'GET', `${API}/envelopes/${envelope.id}/status`, { key })).json();
      assert.deepEqual(
        status.recipients.map((r: { status: string }) => r.status),
        ['signed', 'active'],
      );
      const done = await sign(server.url, second);
      assert.equal(done.status, 200, done.bytes.toString());
      assert.equal(done.json().envelope_status, 'completed');
      const final = (
        await call(server.url, 'GET', `${API}/envelopes/${envelope.id}/documents/${documentId}/download`, { key })
      ).bytes;
      assert.equal(verifyPdf(final).valid, true);
      assert.deepEqual(
        pdfsigVerdicts(final).valid,
        [true, true, true, true],
        'the certification at send, the two signatures and the completion lock',
      );
      server.child.kill('SIGTERM');
    });
  }
});
