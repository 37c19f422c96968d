/**
 * Around the acts: mail through a real SMTP server on loopback (with working links), reminders at most
 * hourly, expiry as a durable job, the certificate of completion and the hash-chained audit trail.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { verifyAuditChain } from '../../../server/audit/index.js';
import { DATABASES } from '../../support/databases.js';
import { makeDraft, sendDraft } from '../../support/envelopes.js';
import { API, LEGACY, startTestServer, type TestAccount, type TestServer } from '../../support/server.js';
import { startSmtp, type SmtpTestServer } from '../../support/smtp.js';
import { pdfsigVerdicts } from '../../support/validators.js';

for (const kind of DATABASES) {
  describe(`envelope lifecycle on ${kind}`, () => {
    let smtp: SmtpTestServer;
    let server: TestServer;
    let account: TestAccount;
    before(async () => {
      smtp = await startSmtp();
      server = await startTestServer(kind, { MOHAR_SMTP_URL: smtp.url, MOHAR_BASE_URL: 'http://sign.test' });
      account = await server.newAccount();
    });
    after(async () => {
      await server?.close();
      await smtp?.close();
    });
    const people = [
      { name: 'Asha Rao', email: 'asha@example.com' },
      { name: 'Ravi', email: 'ravi@example.com', role: 'approver' },
      { name: 'Kiran', email: 'kiran@example.com', role: 'cc' },
    ];
    const linkIn = (text: string) => /http:\/\/sign\.test\/sign\/([A-Za-z0-9_-]+)/.exec(text)?.[1];

    test('invitations, your-turn and completion mails arrive over SMTP with working links; certificate and audit trail', async () => {
      const draft = await makeDraft(server, account.key, { recipients: people });
      await sendDraft(server, account.key, draft);
      await server.runJobs();
      const invitation = smtp.messages.find((m) => m.to.includes('asha@example.com'));
      assert.ok(invitation, 'the first signer is invited');
      assert.match(invitation.subject, /Agreement/);
      const ashaLink = linkIn(invitation.text)!;
      assert.ok(ashaLink, invitation.text);
      assert.ok(!smtp.messages.some((m) => m.to.includes('ravi@example.com')), 'the approver waits for their turn');

      const view = await server.request('GET', `${API}/signing/${ashaLink}`);
      assert.equal(view.json().action, 'sign', 'the mailed link opens the signing view');
      const signed = await server.request('POST', `${API}/signing/${ashaLink}`, {
        json: { action: 'sign', consent: true, signature: { kind: 'typed', text: 'Asha Rao' } },
      });
      assert.equal(signed.statusCode, 200, signed.body);
      await server.runJobs();
      const yourTurn = smtp.messages.find((m) => m.to.includes('ravi@example.com'));
      assert.ok(yourTurn, 'the approver hears it is their turn');
      const approved = await server.request('POST', `${API}/signing/${linkIn(yourTurn.text)}`, {
        json: { action: 'approve', consent: true },
      });
      assert.equal(approved.json().envelope_status, 'completed');
      await server.runJobs();

      const final = (
        await server.request('GET', `${API}/envelopes/${draft.id}/documents/${draft.documentId}/download`, {
          key: account.key,
        })
      ).rawPayload;
      for (const email of ['asha@example.com', 'ravi@example.com', 'kiran@example.com']) {
        const done = smtp.messages.find((m) => m.to.includes(email) && /complete/i.test(m.subject));
        assert.ok(done, `completion mail to ${email}`);
        assert.ok(
          done.attachments.some((a) => a.content.equals(final)),
          'the signed PDF is attached, byte-identical',
        );
      }

      const outbox = (
        await server.request('GET', `${LEGACY}/mail/outbox/?envelope_id=${draft.id}`, { token: account.token })
      ).json();
      assert.ok(outbox.items.length >= 5);
      assert.ok(outbox.items.every((m: { status: string }) => m.status === 'sent'));

      const certificate = await server.request('GET', `${API}/envelopes/${draft.id}/audit-trail/certificate`, {
        key: account.key,
      });
      assert.equal(certificate.statusCode, 200, certificate.body);
      assert.deepEqual(pdfsigVerdicts(certificate.rawPayload).valid, [true], 'the certificate is sealed');
      assert.ok(
        !final.equals(certificate.rawPayload),
        'the certificate is a separate file; the signed document is not modified',
      );

      const trail = (
        await server.request('GET', `${API}/envelopes/${draft.id}/audit-trail`, { key: account.key })
      ).json();
      assert.equal(trail.chain.ok, true);
      const actions = trail.events.map((e: { action: string }) => e.action);
      // Each mailed link is audited when it is made (issue 16 point 12): the invitation at send, the your-turn after
      // Asha.
      assert.deepEqual(actions, [
        'envelope.created',
        'signing_link.created',
        'envelope.sent',
        'recipient.viewed',
        'recipient.signed',
        'signing_link.created',
        'recipient.approved',
        'envelope.completed',
        'certificate.issued',
      ]);
      const rows = await server.ctx.db
        .selectFrom('audit_events')
        .selectAll()
        .where('envelope_id', '=', draft.id)
        .orderBy('seq')
        .execute();
      assert.equal(verifyAuditChain(rows).ok, true);
    });

    test('reminders go to active recipients at most once an hour', async () => {
      const draft = await makeDraft(server, account.key, { recipients: people, routing_order: 'parallel' });
      await sendDraft(server, account.key, draft);
      const first = (await server.request('POST', `${API}/envelopes/${draft.id}/remind`, { key: account.key })).json();
      assert.deepEqual(
        first.reminded.map((r: { email: string }) => r.email),
        ['asha@example.com', 'ravi@example.com'],
      );
      const second = (await server.request('POST', `${API}/envelopes/${draft.id}/remind`, { key: account.key })).json();
      assert.deepEqual(second.reminded, []);
      assert.equal(second.skipped.length, 2);
      assert.equal(second.skipped[0].reason, 'reminded_recently');
      server.clock.advance(3601);
      assert.equal(
        (await server.request('POST', `${API}/envelopes/${draft.id}/remind`, { key: account.key })).json().reminded
          .length,
        2,
      );
      const reminders = await server.ctx.db
        .selectFrom('outbox_mail')
        .select('kind')
        .where('envelope_id', '=', draft.id)
        .where('kind', '=', 'reminder')
        .execute();
      assert.equal(reminders.length, 4);
    });

    test('an envelope past expire_in_days expires through its job; its links die', async () => {
      const draft = await makeDraft(server, account.key, { recipients: people, expire_in_days: 1 });
      await sendDraft(server, account.key, draft);
      const link = (
        await server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
          key: account.key,
          json: { recipient_id: draft.recipientIds[0], mode: 'redirect' },
        })
      )
        .json()
        .signing_url.split('/sign/')[1];
      await server.runJobs();
      assert.equal(
        (await server.request('GET', `${API}/envelopes/${draft.id}/status`, { key: account.key })).json().status,
        'sent',
        'not before its time',
      );
      server.clock.advance(86_400 + 60);
      await server.runJobs();
      assert.equal(
        (await server.request('GET', `${API}/envelopes/${draft.id}/status`, { key: account.key })).json().status,
        'expired',
      );
      assert.equal((await server.request('GET', `${API}/signing/${link}`)).statusCode, 410);
      const events = await server.ctx.db
        .selectFrom('events')
        .select('type')
        .where('envelope_id', '=', draft.id)
        .execute();
      assert.ok(events.some((e) => e.type === 'envelope.expired'));
    });
  });
}
