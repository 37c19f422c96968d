/**
 * POST /verify (issue 28, point 8): anyone's PDF, no login. A document this server completed gets its envelope's
 * audit summary (and nothing for a changed copy); a tampered copy is reported as a change no signature allows; a PDF
 * signed elsewhere is judged against the CCA India roots and the configured anchors; uploads are never stored and
 * are limited per address.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { API, multipartBody, startTestServer, type TestAccount, type TestServer } from '../../support/server.js';
import {
  completedDocument,
  signedElsewhere,
  tamperPageContent,
  type CompletedDocument,
} from '../../support/verify-fixtures.js';

interface Report {
  sha256: string;
  valid: boolean;
  signatures: {
    signer_name: string | null;
    valid: boolean;
    changes_after: string;
    changes_after_allowed: boolean;
    trust: { status: string } | null;
    chain: { status: string; anchor: string | null; problem: string | null; judged_at_source: string };
  }[];
  mohar_envelope: {
    envelope_id: string;
    title: string;
    recipients: { name: string }[];
    audit: { chain_intact: boolean; events: number };
  } | null;
  cannot_know: string[];
}

describe('POST /verify', () => {
  let server: TestServer;
  let account: TestAccount;
  let completed: CompletedDocument;
  let elsewhere: Awaited<ReturnType<typeof signedElsewhere>>;
  let anchoredElsewhere: Awaited<ReturnType<typeof signedElsewhere>>;
  before(async () => {
    elsewhere = await signedElsewhere('Meera Iyer');
    anchoredElsewhere = await signedElsewhere('Kabir Das');
    server = await startTestServer('sqlite', {
      MOHAR_DSC_TRUST_ANCHORS: anchoredElsewhere.key.pki.root.certPath,
      MOHAR_VERIFY_RATE_LIMIT_PER_MINUTE: '12',
    });
    account = await server.newAccount();
    completed = await completedDocument(server, account.key);
  });
  after(() => server?.close());

  const verify = async (pdf: Uint8Array) => {
    const response = await server.app.inject({
      method: 'POST',
      url: '/verify',
      headers: { 'content-type': 'application/pdf' },
      payload: Buffer.from(pdf),
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.match(String(response.headers['content-type']), /^application\/json/);
    return response.json() as Report;
  };

  test('a document this server completed: valid, sealed by this installation, with its audit summary', async () => {
    const blobsBefore = await server.ctx.db.selectFrom('documents').select('id').execute();
    const report = await verify(completed.pdf);
    assert.equal(report.valid, true);
    assert.ok(report.signatures.length >= 2, 'certification at send and the signer act at least');
    assert.ok(report.signatures.some((s) => s.trust?.status === 'installation_seal'));
    assert.ok(report.signatures.every((s) => s.changes_after_allowed));
    assert.ok(report.mohar_envelope, 'the envelope is recognised by the hash');
    assert.equal(report.mohar_envelope.envelope_id, completed.envelopeId);
    assert.deepEqual(
      report.mohar_envelope.recipients.map((r) => r.name),
      ['Asha Rao'],
    );
    assert.equal(report.mohar_envelope.audit.chain_intact, true);
    assert.ok(report.mohar_envelope.audit.events > 3);
    assert.ok(!JSON.stringify(report).includes('asha@example.com'), 'no e-mail address is disclosed');
    assert.ok(report.cannot_know.includes('revocation_not_checked'));
    const blobsAfter = await server.ctx.db.selectFrom('documents').select('id').execute();
    assert.equal(blobsAfter.length, blobsBefore.length, 'nothing is stored');
  });

  test('the same file as a multipart part "file" gives the same report', async () => {
    const form = multipartBody([{ field: 'file', filename: 'signed.pdf', bytes: completed.pdf }]);
    const response = await server.app.inject({
      method: 'POST',
      url: '/verify',
      headers: { 'content-type': form.contentType },
      payload: form.body,
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal((response.json() as Report).mohar_envelope?.envelope_id, completed.envelopeId);
  });

  test('a tampered copy: the page change is reported as not allowed, and no envelope matches', async () => {
    const report = await verify(tamperPageContent(completed.pdf));
    assert.equal(report.valid, false);
    assert.equal(report.mohar_envelope, null, 'other bytes match no completed envelope');
    assert.ok(report.signatures.every((s) => !s.changes_after_allowed));
    assert.ok(report.signatures.every((s) => s.changes_after === 'other'));
  });

  test('signed elsewhere: not anchored, unless its root is a configured anchor', async () => {
    const outside = await verify(elsewhere.pdf);
    assert.equal(outside.signatures.length, 1);
    assert.equal(outside.signatures[0]!.signer_name, 'Meera Iyer');
    assert.equal(outside.signatures[0]!.valid, true, 'integrity holds whoever signed');
    assert.equal(outside.signatures[0]!.chain.status, 'not_anchored');
    assert.equal(outside.signatures[0]!.chain.problem, 'unknown_issuer');
    assert.ok(outside.cannot_know.includes('untrusted_chain_revocation'));
    assert.equal(outside.mohar_envelope, null);

    const anchored = await verify(anchoredElsewhere.pdf);
    assert.equal(anchored.signatures[0]!.chain.status, 'configured_anchor');
    assert.equal(anchored.signatures[0]!.chain.problem, null);
    assert.equal(anchored.signatures[0]!.chain.judged_at_source, 'claimed_time');
  });

  test('not a PDF: 422 invalid_pdf; JSON instead of a PDF: 415', async () => {
    const junk = await server.app.inject({
      method: 'POST',
      url: '/verify',
      headers: { 'content-type': 'application/pdf' },
      payload: Buffer.from('hello, not a pdf'),
    });
    assert.equal(junk.statusCode, 422, junk.body);
    assert.equal(junk.json().code, 'invalid_pdf');
    const json = await server.app.inject({ method: 'POST', url: '/verify', payload: { pdf: 'x' } });
    assert.equal(json.statusCode, 415, json.body);
  });

  test('uploads are limited per address (MOHAR_VERIFY_RATE_LIMIT_PER_MINUTE), before the body is read', async () => {
    let refused = null;
    for (let i = 0; i < 14 && !refused; i++) {
      const response = await server.app.inject({
        method: 'POST',
        url: '/verify',
        headers: { 'content-type': 'application/pdf' },
        payload: Buffer.from('x'),
      });
      if (response.statusCode === 429) refused = response;
    }
    assert.ok(refused, 'the 13th upload in a minute is refused');
    assert.equal(refused.json().code, 'rate_limited');
    assert.ok(Number(refused.headers['retry-after']) >= 1);
    const other = await server.app.inject({
      method: 'POST',
      url: '/verify',
      remoteAddress: '10.1.2.3',
      headers: { 'content-type': 'application/pdf' },
      payload: Buffer.from(elsewhere.pdf),
    });
    assert.equal(other.statusCode, 200, 'another address is not affected');
    const api = await server.request('GET', `${API}/envelopes`, { key: account.key });
    assert.equal(api.statusCode, 200, 'the API is not affected');
  });
});
