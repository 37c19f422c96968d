/**
 * Issue 16 points 4 and 5 on SQLite and PostgreSQL: test keys see only test data and live keys only live data
 * (404 across, no side effects); test envelopes' mail stays in the outbox marked test and never reaches the SMTP
 * server; completed test documents carry the visible TEST mark and the test seal (v1 and legacy); delivery "none"
 * sends no invitation or reminder while signing sessions work.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { verifyPdf } from '../../../pdf/verify/index.js';
import { DATABASES } from '../../support/databases.js';
import { makeDraft, sendDraft } from '../../support/envelopes.js';
import { API, LEGACY, startTestServer, type TestAccount, type TestServer } from '../../support/server.js';
import { startSmtp, type SmtpTestServer } from '../../support/smtp.js';
import { legacyCreate, startDocServer, tokenOf, type DocServer } from '../legacy/helpers.js';
import { createSaleTemplate, instantiate, PEOPLE } from '../../support/templates.js';
import { makeSource, postBulk, row } from '../bulk/helpers.js';
import { makePdf } from '../../support/pdf-fixtures.js';

const TEST_MARK = /TEST\s*[–-]\s*no legal effect/;

function pdftotext(pdf: Uint8Array): string {
  const dir = mkdtempSync(join(tmpdir(), 'mohar-test-mode-'));
  try {
    const file = join(dir, 'in.pdf');
    writeFileSync(file, pdf);
    const r = spawnSync('pdftotext', [file, '-'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Text per page (pdftotext separates pages with form feeds). */
function pagesText(pdf: Uint8Array): string[] {
  return pdftotext(pdf).split('\f').slice(0, -1);
}

function signerSubjects(pdf: Uint8Array): string[] {
  return verifyPdf(pdf).signatures.map((s) => s.signer?.subject ?? '');
}

for (const kind of DATABASES) {
  describe(`test keys and delivery modes on ${kind}`, () => {
    let server: TestServer;
    let smtp: SmtpTestServer;
    let docs: DocServer;
    let account: TestAccount & { testKey?: string };
    let testKey: string;
    before(async () => {
      smtp = await startSmtp();
      docs = await startDocServer();
      server = await startTestServer(kind, { MOHAR_SMTP_URL: smtp.url, MOHAR_FETCH_ALLOW_PRIVATE: '1' });
      account = await server.newAccount({ testMode: true });
      testKey = account.testKey!;
    });
    after(async () => {
      await server?.close();
      await smtp?.close();
      await docs?.close();
    });

    const outbox = async (envelopeId: string) => {
      const response = await server.request('GET', `${LEGACY}/mail/outbox/?envelope_id=${envelopeId}`, {
        token: account.token,
      });
      assert.equal(response.statusCode, 200, response.body);
      return response.json().items as { kind: string; status: string; test: boolean; to: string }[];
    };
    const session = (key: string, envelopeId: string, recipientId: string) =>
      server.request('POST', `${API}/envelopes/${envelopeId}/signing-sessions`, {
        key,
        json: { recipient_id: recipientId, mode: 'redirect' },
      });
    const signAll = async (key: string, envelopeId: string, recipientIds: string[]) => {
      for (const id of recipientIds) {
        const created = await session(key, envelopeId, id);
        assert.equal(created.statusCode, 201, created.body);
        const signed = await server.request('POST', `${API}/signing/${tokenOf(created.json().signing_url)}`, {
          json: { action: 'sign', consent: true, signature: { kind: 'typed', text: 'Asha Rao' } },
        });
        assert.equal(signed.statusCode, 200, signed.body);
      }
    };

    test('a test key gets 404 for live envelopes and a live key for test ones, with no side effect; lists are per mode', async () => {
      const live = await makeDraft(server, account.key, {
        recipients: [{ name: 'Asha Rao', email: 'asha@example.com' }],
      });
      const testDraft = await makeDraft(server, testKey, { recipients: [{ name: 'Ravi', email: 'ravi@example.com' }] });
      assert.equal(
        (await server.request('GET', `${API}/envelopes/${live.id}`, { key: account.key })).json().mode,
        'live',
      );
      assert.equal(
        (await server.request('GET', `${API}/envelopes/${testDraft.id}`, { key: testKey })).json().mode,
        'test',
      );

      for (const [key, draft] of [
        [testKey, live],
        [account.key, testDraft],
      ] as const) {
        const calls: [string, string, unknown?][] = [
          ['GET', `/envelopes/${draft.id}`],
          ['GET', `/envelopes/${draft.id}/status`],
          ['PATCH', `/envelopes/${draft.id}`, { title: 'changed' }],
          ['POST', `/envelopes/${draft.id}/recipients`, { name: 'Eve', email: 'eve@example.com' }],
          ['PUT', `/envelopes/${draft.id}/documents/${draft.documentId}/fields`, { fields: [] }],
          ['DELETE', `/envelopes/${draft.id}/recipients/${draft.recipientIds[0]}`],
          ['POST', `/envelopes/${draft.id}/send`],
          ['POST', `/envelopes/${draft.id}/remind`],
          ['POST', `/envelopes/${draft.id}/void`, { reason: 'nope' }],
          [
            'POST',
            `/envelopes/${draft.id}/signing-sessions`,
            { recipient_id: draft.recipientIds[0], mode: 'redirect' },
          ],
          ['GET', `/envelopes/${draft.id}/documents/${draft.documentId}/download`],
          ['GET', `/envelopes/${draft.id}/documents/${draft.documentId}/signatures`],
          ['GET', `/envelopes/${draft.id}/audit-trail`],
        ];
        for (const [method, path, json] of calls) {
          const response = await server.request(method, `${API}${path}`, {
            key,
            ...(json === undefined ? {} : { json }),
          });
          assert.equal(response.statusCode, 404, `${method} ${path} across modes: ${response.body}`);
        }
        const list = (await server.request('GET', `${API}/envelopes`, { key })).json();
        assert.ok(!list.envelopes.some((e: { id: string }) => e.id === draft.id), 'the other mode is not listed');
      }
      // Nothing changed: both are untouched drafts.
      const liveNow = (await server.request('GET', `${API}/envelopes/${live.id}`, { key: account.key })).json();
      assert.deepEqual([liveNow.status, liveNow.title, liveNow.recipients.length], ['draft', 'Agreement', 1]);
      const testNow = (await server.request('GET', `${API}/envelopes/${testDraft.id}`, { key: testKey })).json();
      assert.deepEqual([testNow.status, testNow.title, testNow.recipients.length], ['draft', 'Agreement', 1]);
      // The console (a login) is live.
      assert.equal(
        (await server.request('GET', `${API}/envelopes/${testDraft.id}`, { token: account.token })).statusCode,
        404,
      );
      assert.equal(
        (await server.request('GET', `${API}/envelopes/${live.id}`, { token: account.token })).statusCode,
        200,
      );
      // An Idempotency-Key of a live create is not replayed to a test key (nor the other way round).
      const body = { title: 'Keyed' };
      const first = await server.request('POST', `${API}/envelopes`, {
        key: account.key,
        json: body,
        headers: { 'idempotency-key': 'order-7' },
      });
      assert.equal(first.statusCode, 201, first.body);
      const again = await server.request('POST', `${API}/envelopes`, {
        key: testKey,
        json: body,
        headers: { 'idempotency-key': 'order-7' },
      });
      assert.equal(again.statusCode, 409, again.body);
      assert.equal(again.json().code, 'idempotency_conflict');
      // external_id is unique per account and mode: a live one's id tells a test key nothing.
      assert.equal(
        (
          await server.request('POST', `${API}/envelopes`, {
            key: account.key,
            json: { title: 'Order', external_id: 'order-9' },
          })
        ).statusCode,
        201,
      );
      const sameId = await server.request('POST', `${API}/envelopes`, {
        key: testKey,
        json: { title: 'Order', external_id: 'order-9' },
      });
      assert.equal(sameId.statusCode, 201, sameId.body);
      assert.equal(
        (
          await server.request('POST', `${API}/envelopes`, {
            key: testKey,
            json: { title: 'Order', external_id: 'order-9' },
          })
        ).json().code,
        'external_id_conflict',
      );
      const mine = (await server.request('GET', `${API}/envelopes`, { key: testKey })).json();
      assert.ok(mine.envelopes.some((e: { id: string }) => e.id === testDraft.id));
    });

    test('a test envelope: its mail stays in the outbox marked test, never delivered, no quota; the signed PDF is marked and test-sealed', async () => {
      const usageBefore = (await server.request('GET', `${LEGACY}/usage/summary/`, { key: account.key })).json();
      const draft = await makeDraft(server, testKey, {
        recipients: [{ name: 'Asha Rao', email: 'asha-test@example.com' }],
      });
      await sendDraft(server, testKey, draft);
      await server.runJobs();
      const mails = await outbox(draft.id);
      assert.equal(mails.length, 1);
      assert.deepEqual([mails[0]!.kind, mails[0]!.status, mails[0]!.test], ['invitation', 'kept', true]);
      assert.ok(!smtp.messages.some((m) => m.to.includes('asha-test@example.com')), 'nothing reached the SMTP server');

      await signAll(testKey, draft.id, draft.recipientIds);
      await server.runJobs();
      const completion = (await outbox(draft.id)).filter((m) => m.kind === 'completion');
      assert.deepEqual(
        completion.map((m) => [m.status, m.test]),
        [['kept', true]],
      );
      assert.ok(!smtp.messages.some((m) => m.to.includes('asha-test@example.com')), 'the completion mail neither');
      const usageAfter = (await server.request('GET', `${LEGACY}/usage/summary/`, { key: account.key })).json();
      assert.equal(usageAfter.calls_used, usageBefore.calls_used, 'no quota used');

      // Its events (and so the webhook deliveries of the account's one endpoint) say it is a test envelope.
      const events = await server.ctx.db
        .selectFrom('events')
        .select(['type', 'payload'])
        .where('envelope_id', '=', draft.id)
        .execute();
      assert.ok(events.length >= 3);
      for (const e of events) {
        assert.equal(
          (JSON.parse(e.payload) as { data: { envelope: { test?: boolean } } }).data.envelope.test,
          true,
          e.type,
        );
      }
      const download = await server.request(
        'GET',
        `${API}/envelopes/${draft.id}/documents/${draft.documentId}/download`,
        { key: testKey },
      );
      assert.equal(download.statusCode, 200, download.body);
      const pages = pagesText(download.rawPayload);
      assert.equal(pages.length, 2);
      for (const text of pages) assert.match(text, TEST_MARK, 'every page carries the TEST mark');
      const subjects = signerSubjects(download.rawPayload);
      assert.ok(subjects.length >= 1);
      for (const subject of subjects) assert.match(subject, /TEST/, `sealed by the test seal: ${subject}`);
      assert.ok(verifyPdf(download.rawPayload).valid, 'the mark does not break any signature');
      // The signatures endpoint names the test seal's signatures as test, never as the installation seal.
      const summary = (
        await server.request('GET', `${API}/envelopes/${draft.id}/documents/${draft.documentId}/signatures`, {
          key: testKey,
        })
      ).json();
      assert.ok(summary.signatures.length >= 2);
      for (const sig of summary.signatures) assert.equal(sig.trust?.status, 'test_certificate', sig.field);
    });

    test('a live envelope: delivered mail, no mark, the live seal', async () => {
      const draft = await makeDraft(server, account.key, {
        recipients: [{ name: 'Asha Rao', email: 'asha-live@example.com' }],
      });
      await sendDraft(server, account.key, draft);
      await server.runJobs();
      assert.deepEqual(
        (await outbox(draft.id)).map((m) => [m.status, m.test]),
        [['sent', false]],
      );
      await smtp.waitFor(1);
      assert.ok(smtp.messages.some((m) => m.to.includes('asha-live@example.com')));
      await signAll(account.key, draft.id, draft.recipientIds);
      const events = await server.ctx.db
        .selectFrom('events')
        .select('payload')
        .where('envelope_id', '=', draft.id)
        .execute();
      for (const e of events) {
        assert.ok(
          !('test' in (JSON.parse(e.payload) as { data: { envelope: object } }).data.envelope),
          'live payloads are unchanged',
        );
      }
      const download = await server.request(
        'GET',
        `${API}/envelopes/${draft.id}/documents/${draft.documentId}/download`,
        { key: account.key },
      );
      assert.doesNotMatch(pdftotext(download.rawPayload), TEST_MARK);
      for (const subject of signerSubjects(download.rawPayload)) assert.doesNotMatch(subject, /TEST/);
    });

    test('a legacy test document: mail kept as test, TEST mark and test seal; its id is 404 to the live key', async () => {
      const created = await legacyCreate(server, testKey, {
        docUrl: `${docs.base}/doc.pdf`,
        mail: true,
        recipients: [
          {
            name: 'Asha Rao',
            email: 'asha-legacy@example.com',
            typeOfSignature: 'E-Signature',
            sequence: 1,
            page_no: 1,
            x_cor: 72,
            y_cor: 600,
          },
        ],
      });
      assert.equal(created.statusCode, 200, created.body);
      const { document_id: documentId, envelope_id: envelopeId } = created.json();
      await server.runJobs();
      assert.deepEqual(
        (await outbox(envelopeId)).map((m) => [m.kind, m.status, m.test]),
        [['invitation', 'kept', true]],
      );
      assert.ok(!smtp.messages.some((m) => m.to.includes('asha-legacy@example.com')));

      assert.equal(
        (await server.request('GET', `${LEGACY}/document/app/sign/status/${documentId}/`, { key: account.key }))
          .statusCode,
        404,
      );
      assert.equal(
        (await server.request('GET', `${LEGACY}/document/sign/status/?doc_id=${documentId}`, { key: account.key }))
          .statusCode,
        404,
      );
      assert.equal(
        (
          await server.request('POST', `${LEGACY}/document/signing-links/`, {
            key: account.key,
            json: { companyDetails: { api_key: account.key }, document_id: documentId },
          })
        ).statusCode,
        404,
      );
      assert.equal(
        (await server.request('GET', `${API}/envelopes/${envelopeId}`, { key: account.key })).statusCode,
        404,
      );

      const envelope = (await server.request('GET', `${API}/envelopes/${envelopeId}`, { key: testKey })).json();
      await signAll(
        testKey,
        envelopeId,
        envelope.recipients.map((r: { recipient_id: string }) => r.recipient_id),
      );
      const download = await server.request('GET', `${LEGACY}/document/download/?doc_id=${documentId}`, {
        key: testKey,
      });
      assert.equal(download.statusCode, 200, download.body);
      for (const text of pagesText(download.rawPayload)) assert.match(text, TEST_MARK);
      for (const subject of signerSubjects(download.rawPayload)) assert.match(subject, /TEST/);
      assert.equal(
        (await server.request('GET', `${LEGACY}/document/download/?doc_id=${documentId}`, { key: account.key }))
          .statusCode,
        404,
      );
    });

    test('delivery "none": no invitation, no reminder; a signing session link works', async () => {
      const created = await server.request('POST', `${API}/envelopes`, {
        key: account.key,
        json: {
          title: 'Headless',
          delivery: 'none',
          recipients: [{ name: 'Asha Rao', email: 'asha-headless@example.com' }],
        },
      });
      assert.equal(created.statusCode, 201, created.body);
      assert.equal(created.json().delivery, 'none');
      const byDefault = await server.request('POST', `${API}/envelopes`, {
        key: account.key,
        json: { title: 'Mailed' },
      });
      assert.equal(byDefault.json().delivery, 'email');
      const bad = await server.request('POST', `${API}/envelopes`, {
        key: account.key,
        json: { title: 'x', delivery: 'sms' },
      });
      assert.equal(bad.statusCode, 422);

      const id = created.json().id as string;
      const recipientId = created.json().recipients[0].recipient_id as string;
      const document = await server.request('POST', `${API}/envelopes/${id}/documents`, {
        key: account.key,
        file: { bytes: (await import('../../support/pdf-fixtures.js')).makePdf({ pages: 1 }) },
      });
      assert.equal(document.statusCode, 201, document.body);
      const fields = [
        { recipient_id: recipientId, field_type: 1, page_number: 1, x: 40, y: 40, width: 180, height: 50 },
      ];
      assert.equal(
        (
          await server.request('PUT', `${API}/envelopes/${id}/documents/${document.json().document_id}/fields`, {
            key: account.key,
            json: { fields },
          })
        ).statusCode,
        200,
      );
      assert.equal((await server.request('POST', `${API}/envelopes/${id}/send`, { key: account.key })).statusCode, 200);
      assert.equal(
        (await server.request('GET', `${API}/envelopes/${id}`, { key: account.key })).json().delivery,
        'none',
      );
      const remind = await server.request('POST', `${API}/envelopes/${id}/remind`, { key: account.key });
      assert.ok(remind.statusCode < 300, remind.body);
      await server.runJobs();
      assert.deepEqual(await outbox(id), [], 'no invitation, no reminder');
      await signAll(account.key, id, [recipientId]);
      await server.runJobs();
      assert.deepEqual(await outbox(id), [], 'nor any later mail');
      assert.equal(
        (await server.request('GET', `${API}/envelopes/${id}`, { key: account.key })).json().status,
        'completed',
      );
    });

    test('workspace documents and bulk sends are per mode too; a test bulk send makes test envelopes', async () => {
      const upload = await server.request('POST', `${API}/documents`, {
        key: account.key,
        file: { bytes: makePdf({ pages: 1 }) },
      });
      assert.equal(upload.statusCode, 201, upload.body);
      const documentId = upload.json().document_id as string;
      assert.equal((await server.request('GET', `${API}/documents/${documentId}`, { key: testKey })).statusCode, 404);
      assert.equal(
        (await server.request('GET', `${API}/documents/${documentId}/content`, { key: testKey })).statusCode,
        404,
      );
      const testDraft = await server.request('POST', `${API}/envelopes`, { key: testKey, json: { title: 'Attach' } });
      assert.equal(
        (
          await server.request('POST', `${API}/envelopes/${testDraft.json().id}/documents`, {
            key: testKey,
            json: { document_id: documentId },
          })
        ).statusCode,
        404,
        'a live upload cannot be attached by a test key',
      );
      assert.equal(
        (await server.request('GET', `${API}/documents/${documentId}`, { key: account.key })).statusCode,
        200,
      );

      const liveSource = await makeSource(server, account.key);
      const crossSource = await postBulk(server, testKey, { source_envelope_id: liveSource.id, rows: [row(1)] });
      assert.equal(crossSource.statusCode, 404, `a live source is not found by a test key: ${crossSource.body}`);
      const source = await makeSource(server, testKey);
      const created = await postBulk(server, testKey, { source_envelope_id: source.id, rows: [row(1), row(2)] });
      assert.equal(created.statusCode, 202, created.body);
      const bulkId = created.json().bulk_send_id as string;
      for (const path of [`/bulk-sends/${bulkId}`, `/bulk-sends/${bulkId}/envelopes`]) {
        assert.equal((await server.request('GET', `${API}${path}`, { key: account.key })).statusCode, 404, path);
      }
      assert.equal(
        (await server.request('POST', `${API}/bulk-sends/${bulkId}/cancel`, { key: account.key })).statusCode,
        404,
      );
      assert.ok(
        !(await server.request('GET', `${API}/bulk-sends`, { key: account.key }))
          .json()
          .bulk_sends.some((b: { bulk_send_id: string }) => b.bulk_send_id === bulkId),
      );
      for (let i = 0; i < 5; i++) await server.runJobs();
      const envelopes = (
        await server.request('GET', `${API}/envelopes?bulk_send_id=${bulkId}`, { key: testKey })
      ).json().envelopes as { id: string }[];
      assert.equal(envelopes.length, 2);
      for (const e of envelopes) {
        assert.equal((await server.request('GET', `${API}/envelopes/${e.id}`, { key: testKey })).json().mode, 'test');
      }
    });

    test('templates are shared: instantiated with a test key the envelope is test; delivery "none" on instantiate', async () => {
      const template = await createSaleTemplate(server, account.key);
      const asTest = await instantiate(server, testKey, template.id, { recipients: PEOPLE, send: true });
      assert.equal(asTest.statusCode, 201, asTest.body);
      assert.deepEqual([asTest.json().mode, asTest.json().delivery], ['test', 'email']);
      assert.equal(
        (await server.request('GET', `${API}/envelopes/${asTest.json().id}`, { key: account.key })).statusCode,
        404,
      );
      await server.runJobs();
      const mails = await outbox(asTest.json().id);
      assert.ok(mails.length > 0 && mails.every((m) => m.test && m.status === 'kept'));

      const headless = await instantiate(server, account.key, template.id, {
        recipients: PEOPLE,
        send: true,
        delivery: 'none',
      });
      assert.equal(headless.statusCode, 201, headless.body);
      assert.deepEqual([headless.json().mode, headless.json().delivery], ['live', 'none']);
      await server.runJobs();
      assert.deepEqual(await outbox(headless.json().id), []);
    });
  });
}
