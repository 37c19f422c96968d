/**
 * A template moves between installations as JSON (GET ?include=documents, then POST it elsewhere) and works
 * there end to end: instantiated, sent, signed, completed; the signed PDF is judged by pdfsig and qpdf.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DATABASES } from '../../support/databases.js';
import { qpdfCheck } from '../../support/pdf-fixtures.js';
import { API, startTestServer, type TestAccount, type TestServer } from '../../support/server.js';
import { pdfsigVerdicts } from '../../support/validators.js';
import { createSaleTemplate, instantiate, PEOPLE } from '../../support/templates.js';

for (const kind of DATABASES) {
  describe(`template export and import on ${kind}`, () => {
    let source: TestServer;
    let target: TestServer;
    let sourceAccount: TestAccount;
    let targetAccount: TestAccount;
    before(async () => {
      source = await startTestServer(kind);
      target = await startTestServer(kind);
      sourceAccount = await source.newAccount();
      targetAccount = await target.newAccount();
    });
    after(async () => {
      await source?.close();
      await target?.close();
    });

    test('export with documents from one server, import into another, instantiate, send, sign, complete', async () => {
      const { id, pdf } = await createSaleTemplate(source, sourceAccount.key, 'Portable sale');
      const exported = (
        await source.request('GET', `${API}/templates/${id}?include=documents`, { key: sourceAccount.key })
      ).json();

      const withoutBytes = await target.request('POST', `${API}/templates`, {
        key: targetAccount.key,
        json: {
          ...exported,
          documents: exported.documents.map(({ content_base64: _c, ...d }: Record<string, unknown>) => d),
        },
      });
      assert.equal(withoutBytes.statusCode, 422, 'without the bytes the target cannot find the PDF');
      assert.match(withoutBytes.json().detail, /include=documents/);

      const imported = await target.request('POST', `${API}/templates`, { key: targetAccount.key, json: exported });
      assert.equal(imported.statusCode, 201, imported.body);
      const copy = imported.json();
      assert.notEqual(copy.template_id, id);
      assert.equal(copy.version, 1);
      assert.deepEqual(copy.roles, exported.roles);
      assert.deepEqual(copy.documents[0].fields, exported.documents[0].fields);
      assert.equal(copy.documents[0].sha256, exported.documents[0].sha256);
      const stored = await target.request('GET', `${API}/documents/${copy.documents[0].document_id}/content`, {
        key: targetAccount.key,
      });
      assert.deepEqual(stored.rawPayload, pdf, 'the PDF arrived byte for byte');
      const history = (
        await target.request('GET', `${API}/templates/${copy.template_id}/versions`, { key: targetAccount.key })
      ).json();
      assert.equal(history.versions[0].summary.created_from, 'import');

      const envelope = await instantiate(target, targetAccount.key, copy.template_id, {
        recipients: PEOPLE,
        field_values: { price: '8500000' },
        send: true,
      });
      assert.equal(envelope.statusCode, 201, envelope.body);
      const sent = envelope.json();
      assert.equal(sent.status, 'sent');
      const signers = sent.recipients.filter((r: { role: string }) => r.role === 'signer');
      for (const signer of signers) {
        const session = await target.request('POST', `${API}/envelopes/${sent.id}/signing-sessions`, {
          key: targetAccount.key,
          json: { recipient_id: signer.recipient_id, mode: 'redirect' },
        });
        assert.equal(session.statusCode, 201, session.body);
        const link = session.json().signing_url.split('/sign/')[1];
        const act = await target.request('POST', `${API}/signing/${link}`, {
          json: { action: 'sign', consent: true, signature: { kind: 'typed', text: signer.name } },
        });
        assert.equal(act.statusCode, 200, act.body);
      }
      await target.runJobs();
      const done = (await target.request('GET', `${API}/envelopes/${sent.id}`, { key: targetAccount.key })).json();
      assert.equal(done.status, 'completed');
      assert.equal(done.template_id, copy.template_id);
      const final = (
        await target.request('GET', `${API}/envelopes/${sent.id}/documents/${copy.documents[0].document_id}/download`, {
          key: targetAccount.key,
        })
      ).rawPayload;
      const verdicts = pdfsigVerdicts(final);
      assert.ok(verdicts.valid.length >= 2, verdicts.output);
      assert.ok(verdicts.valid.every(Boolean), verdicts.output);
      const check = qpdfCheck(final);
      assert.equal(check.ok, true, check.output);
      assert.deepEqual(final.subarray(0, pdf.length), pdf, 'the original bytes are the first revision, unchanged');
    });

    test('import refuses another format and a document whose bytes do not match its SHA-256', async () => {
      const { id } = await createSaleTemplate(source, sourceAccount.key);
      const exported = (
        await source.request('GET', `${API}/templates/${id}?include=documents`, { key: sourceAccount.key })
      ).json();
      const wrongFormat = await target.request('POST', `${API}/templates`, {
        key: targetAccount.key,
        json: { ...exported, format: 'other/v9' },
      });
      assert.equal(wrongFormat.statusCode, 422);
      const tampered = { ...exported, documents: [{ ...exported.documents[0], sha256: 'f'.repeat(64) }] };
      const refused = await target.request('POST', `${API}/templates`, { key: targetAccount.key, json: tampered });
      assert.equal(refused.statusCode, 422);
      assert.match(refused.body, /SHA-256/);
    });
  });
}
