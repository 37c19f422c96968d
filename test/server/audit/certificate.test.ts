/** The certificate of completion from a real trail, on SQLite and PostgreSQL: qpdf, pdfsig, pdftotext, pdfdetach. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { isMoharError } from '../../../common/errors.js';
import { softwareSigner } from '../../../pdf/cms/index.js';
import type { SignatureProvider } from '../../../pdf/index.js';
import {
  GENESIS_HASH,
  canonicalJson,
  hashAuditRow,
  verifyAuditChain,
  type AuditRow,
} from '../../../server/audit/chain.js';
import {
  AUDIT_ATTACHMENT,
  certificateDocument,
  createCompletionCertificate,
  loadCertificateInput,
  type CertificateInput,
} from '../../../server/audit/certificate.js';
import { appendAudit, listAudit } from '../../../server/audit/store.js';
import { DATABASES } from '../../support/databases.js';
import { qpdfCheck } from '../../support/pdf-fixtures.js';
import { loopbackTransport, startTsa, type TestTsa } from '../../support/tsa.js';
import { makeTestSigner, pdfsig, signingToolsAvailable, type TestSigner } from '../../support/openssl-signer.js';
import { insertEnvelope, openAuditTestDb, tamper, type AuditTestDb } from '../../support/audit-db.js';

const TOOLS =
  signingToolsAvailable() &&
  spawnSync('pdftotext', ['-v']).status === 0 &&
  spawnSync('pdfdetach', ['-v']).error === undefined;
const skip = !TOOLS && 'qpdf, poppler (pdfsig, pdftotext, pdfdetach) or openssl not installed';

const ORIGINAL = 'a1'.repeat(32);
const FINAL = 'f0'.repeat(32);
const T0 = Date.UTC(2024, 4, 1, 9, 0, 0);
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

function withFile<T>(pdf: Uint8Array, fn: (file: string, dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'mohar-cert-'));
  try {
    writeFileSync(join(dir, 'in.pdf'), pdf);
    return fn(join(dir, 'in.pdf'), dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function pdftotext(pdf: Uint8Array): string {
  return withFile(pdf, (file) => {
    const r = spawnSync('pdftotext', [file, '-'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout;
  });
}

function attachedTrail(pdf: Uint8Array): { envelope_id: string; events: AuditRow[] } {
  return withFile(pdf, (file, dir) => {
    const r = spawnSync('pdfdetach', ['-saveall', '-o', dir, file], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(readFileSync(join(dir, AUDIT_ATTACHMENT), 'utf8')) as { envelope_id: string; events: AuditRow[] };
  });
}

/** A completed envelope: a signer with a Hindi name, an approver, a declined reviewer; one document. */
async function completedEnvelope(db: AuditTestDb['db']) {
  const env = await insertEnvelope(db, {
    title: 'Lease agreement, Flat 4B',
    recipients: [
      { name: 'राम कुमार', email: 'ram@example.com', role: 'signer', method: 'electronic', status: 'signed' },
      { name: 'Priya Sharma', email: 'priya@example.com', role: 'approver', method: 'review', status: 'approved' },
      { name: 'Dev Patel', email: 'dev@example.com', role: 'reviewer', method: 'review', status: 'declined' },
    ],
  });
  const documentId = randomUUID();
  await db
    .insertInto('documents')
    .values({
      id: documentId,
      account_id: env.accountId,
      filename: 'lease.pdf',
      sha256: ORIGINAL,
      size: 1234,
      page_count: 3,
      info: '{}',
      created_at: at(0),
    })
    .execute();
  await db
    .insertInto('envelope_documents')
    .values({ envelope_id: env.envelopeId, document_id: documentId, position: 1, created_at: at(0) })
    .execute();
  const [ram, priya, dev] = env.recipients.map((r) => r.id) as [string, string, string];
  const append = (s: number, e: Omit<Parameters<typeof appendAudit>[1], 'envelopeId' | 'at'>) =>
    appendAudit(db, { envelopeId: env.envelopeId, at: at(s), ...e });
  await append(0, { actorType: 'api_key', actorId: 'key-1', action: 'envelope.created' });
  await append(1, { actorType: 'api_key', actorId: 'key-1', action: 'envelope.sent' });
  await append(2, {
    actorType: 'recipient',
    actorId: ram,
    action: 'recipient.viewed',
    details: { ip: '203.0.113.7', user_agent: 'Mozilla/5.0 (X11; Linux) Firefox/126.0' },
  });
  await append(3, {
    actorType: 'recipient',
    actorId: ram,
    action: 'recipient.signed',
    details: {
      method: 'electronic',
      consent_at: at(3),
      ip: '203.0.113.7',
      user_agent: 'Mozilla/5.0 (X11; Linux) Firefox/126.0',
      reached_by: 'mail_link',
      document_sha256: ORIGINAL,
    },
  });
  await append(4, {
    actorType: 'recipient',
    actorId: priya,
    action: 'recipient.approved',
    details: { consent: { at: at(4), text: 'I agree' }, ip: '198.51.100.9', user_agent: 'Safari/17' },
  });
  await append(5, {
    actorType: 'recipient',
    actorId: dev,
    action: 'recipient.declined',
    details: { reason: 'Wrong flat number', ip: '192.0.2.44', user_agent: 'Chrome/125' },
  });
  await append(6, {
    actorType: 'system',
    action: 'document.sealed',
    details: { document_id: documentId, document_sha256: FINAL },
  });
  await append(7, { actorType: 'system', action: 'envelope.completed' });
  return { ...env, documentId };
}

describe('certificate of completion', () => {
  let signer: TestSigner;
  let seal: SignatureProvider;
  before(async () => {
    if (!TOOLS) return;
    signer = makeTestSigner('Mohar Test Seal');
    seal = await softwareSigner({
      keyPem: readFileSync(join(signer.dir, 'key.pem')),
      certificate: readFileSync(join(signer.dir, 'cert.pem'), 'utf8'),
    });
  });
  after(() => signer?.cleanup());

  for (const kind of DATABASES) {
    describe(`from ${kind}`, () => {
      let t: AuditTestDb;
      before(async () => {
        t = await openAuditTestDb(kind);
      });
      after(async () => {
        await t.close();
      });

      test('loadCertificateInput reads recipients facts from the trail', async () => {
        const env = await completedEnvelope(t.db);
        const input = await loadCertificateInput(t.db, env.envelopeId);
        assert.equal(input.envelope.completedAt, at(7));
        assert.equal(input.envelope.sender, 'Sharma & Co');
        assert.deepEqual(input.documents, [
          { name: 'lease.pdf', pageCount: 3, originalSha256: ORIGINAL, finalSha256: FINAL },
        ]);
        const [ram, priya, dev] = input.recipients;
        assert.deepEqual(
          { ...ram },
          {
            name: 'राम कुमार',
            email: 'ram@example.com',
            role: 'signer',
            method: 'electronic',
            status: 'signed',
            order: 1,
            actedAt: at(3),
            consentAt: at(3),
            ip: '203.0.113.7',
            userAgent: 'Mozilla/5.0 (X11; Linux) Firefox/126.0',
            reachedBy: 'mail_link',
            declineReason: null,
            certificateSubject: null,
            dsc: null,
          },
        );
        assert.equal(priya!.consentAt, at(4), 'consent given as { at }');
        assert.equal(priya!.reachedBy, null, 'not recorded (an act from before issue 16)');
        assert.equal(priya!.method, 'review');
        assert.deepEqual([dev!.declineReason, dev!.actedAt, dev!.ip], ['Wrong flat number', at(5), '192.0.2.44']);
        assert.equal(input.events.length, 8);
        await assert.rejects(loadCertificateInput(t.db, env.envelopeId, { accountId: 'other' }), (e) =>
          isMoharError(e, 'envelope_not_found'),
        );
      });

      test(
        'the sealed certificate passes qpdf and pdfsig, and pdftotext finds names, hashes and facts',
        { skip },
        async () => {
          const env = await completedEnvelope(t.db);
          const input = await loadCertificateInput(t.db, env.envelopeId);
          const cert = await createCompletionCertificate(input, seal, {
            signingTime: new Date(T0 + 60_000),
            timeZoneOffsetMinutes: 330,
          });
          assert.equal(cert.level, 'B-B');
          assert.equal(cert.chain.ok, true);
          assert.match(cert.fileName, new RegExp(`${env.envelopeId}\\.pdf$`));

          const check = qpdfCheck(cert.bytes);
          assert.ok(check.ok, check.output);
          const sig = pdfsig(cert.bytes);
          assert.equal(sig.signatures.length, 1, sig.output);
          assert.equal(sig.signatures[0]!.validation, 'Signature is Valid.', sig.output);
          assert.equal(sig.signatures[0]!.totalDocument, true);
          assert.ok(cert.bytes.includes('/Reason (Certificate of completion)'), 'the reason');

          const text = pdftotext(cert.bytes);
          for (const expected of [
            'Certificate of Completion',
            'Lease agreement, Flat 4B',
            `Envelope ID: ${env.envelopeId}`,
            `Final SHA-256: ${FINAL}`,
            `Original SHA-256: ${ORIGINAL}`,
            '1. Ram Kumar <ram@example.com>',
            '2. Priya Sharma <priya@example.com>',
            '3. Dev Patel <dev@example.com>',
            'Decline reason: Wrong flat number',
            'IP address: 203.0.113.7',
            'User agent: Mozilla/5.0 (X11; Linux) Firefox/126.0',
            'Consent to sign electronically: 2024-05-01 14:30:03 +05:30',
            'Completed: 2024-05-01 14:30:07 +05:30',
            'Sealed by: CN=Mohar Test Seal',
            '8 events; the hash chain verifies.',
          ]) {
            assert.ok(
              text.replace(/[ \t]+/g, ' ').includes(expected.replace(/[ \t]+/g, ' ')),
              `"${expected}" in the text:\n${text}`,
            );
          }
          for (const row of input.events) assert.ok(text.includes(`hash ${row.hash}`), `hash of seq ${row.seq}`);

          // The attachment holds the exact events: the chain verifies from the certificate alone.
          const trail = attachedTrail(cert.bytes);
          assert.equal(trail.envelope_id, env.envelopeId);
          assert.deepEqual(trail.events, input.events);
          assert.equal(verifyAuditChain(trail.events).ok, true);
          assert.equal(trail.events[2]!.envelope_id, env.envelopeId);
        },
      );

      test('no certificate over a tampered trail: audit_chain_broken', { skip }, async () => {
        const env = await completedEnvelope(t.db);
        await tamper(t, (db) =>
          db
            .updateTable('audit_events')
            .set({ details: '{"reason":"Fine by me"}' })
            .where('envelope_id', '=', env.envelopeId)
            .where('seq', '=', 6)
            .execute()
            .then(() => undefined),
        );
        const input = await loadCertificateInput(t.db, env.envelopeId);
        await assert.rejects(
          createCompletionCertificate(input, seal, { signingTime: new Date(T0) }),
          (e) => isMoharError(e, 'audit_chain_broken') && /seq 6/.test(e.message),
        );
        const foreign = await listAudit(t.db, (await completedEnvelope(t.db)).envelopeId);
        await assert.rejects(
          createCompletionCertificate({ ...input, events: foreign }, seal, { signingTime: new Date(T0) }),
          (e) => isMoharError(e, 'audit_chain_broken'),
        );
      });
    });
  }

  test('B-T with a timestamp authority', { skip }, async () => {
    let tsa: TestTsa | undefined;
    try {
      tsa = await startTsa({
        certPem: readFileSync(join(signer.dir, 'tsa.pem'), 'utf8'),
        keyPem: readFileSync(join(signer.dir, 'tsa-key.pem'), 'utf8'),
      });
      const input: CertificateInput = {
        envelope: { id: 'env-bt', title: 'Timestamped', status: 'completed', createdAt: at(0), completedAt: at(1) },
        documents: [{ name: 'a.pdf', finalSha256: FINAL }],
        recipients: [],
        events: [],
      };
      const cert = await createCompletionCertificate(input, seal, {
        signingTime: new Date(),
        tsaUrl: tsa.url,
        transport: loopbackTransport(),
      });
      assert.equal(cert.level, 'B-T');
      assert.equal(tsa.requests, 1);
      assert.ok(qpdfCheck(cert.bytes).ok);
      assert.equal(pdfsig(cert.bytes).signatures[0]!.validation, 'Signature is Valid.');
    } finally {
      await tsa?.close();
    }
  });

  test('a long trail paginates; the unsealed layout alone is a valid PDF', { skip }, () => {
    const events: AuditRow[] = [];
    for (let seq = 1; seq <= 150; seq++) {
      const row = {
        envelope_id: 'env-long',
        seq,
        account_id: 'acc',
        at: at(seq),
        actor_type: 'system' as const,
        actor_id: null,
        action: 'reminder.sent',
        details: canonicalJson({ to: 'zoe@example.com', n: seq }),
        prev_hash: events.at(-1)?.hash ?? GENESIS_HASH,
      };
      events.push({ ...row, hash: hashAuditRow(row) });
    }
    const input: CertificateInput = {
      envelope: { id: 'env-long', title: 'Many reminders', status: 'sent', createdAt: at(0), completedAt: null },
      documents: [{ name: 'a.pdf', finalSha256: null }],
      recipients: [
        { name: 'Zoë Łódź', email: 'zoe@example.com', role: 'signer', method: 'dsc', status: 'sent', order: 1 },
      ],
      events,
    };
    const pdf = certificateDocument(input, { issuedAt: new Date(T0) });
    assert.ok(qpdfCheck(pdf).ok);
    const text = pdftotext(pdf).replace(/[ \t]+/g, ' ');
    assert.match(text, /Completed: not completed/);
    assert.match(text, /Final SHA-256: none/);
    assert.match(text, /Zoë Lódz <zoe@example.com>/);
    assert.match(text, /IP address: not recorded/);
    assert.match(text, /150 events; the hash chain verifies/);
    assert.ok(text.includes(`hash ${events[149]!.hash}`));
    const pages = Number(/of (\d+)/.exec(text)?.[1]);
    assert.ok(pages > 5, `${pages} pages`);
    assert.match(text, new RegExp(`page ${pages} of ${pages}`));
  });
});
