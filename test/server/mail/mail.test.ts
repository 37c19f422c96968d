import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { isMoharError } from '../../../common/errors.js';
import { parseConfig } from '../../../server/config.js';
import { listJobs } from '../../../server/jobs/queue.js';
import { JobRunner } from '../../../server/jobs/runner.js';
import { jobHandlers } from '../../../server/jobs/definition.js';
import { listOutbox, queueMail, type MailToQueue } from '../../../server/mail/outbox.js';
import { mailSendJob, type MailContext } from '../../../server/mail/send.js';
import { completionMail, invitationMail } from '../../../server/mail/templates.js';
import { DatabaseBlobStore, FileBlobStore, sha256Hex, type BlobStore } from '../../../server/storage/blobs.js';
import { DATABASES } from '../../support/databases.js';
import { makePdf } from '../../support/pdf-fixtures.js';
import { closedSmtpUrl, startSmtp, type SmtpTestServer } from '../../support/smtp.js';
import { MovableClock, openJobsDatabase, quietLogger, waitUntil, type JobsDatabase } from '../jobs/harness.js';

const FROM = 'Mohar Signing <sign@mohar.test>';

for (const kind of DATABASES) {
  describe(`mail on ${kind}`, () => {
    let jobs: JobsDatabase;
    let blobs: BlobStore;
    let smtp: SmtpTestServer;
    const clock = new MovableClock();
    before(async () => {
      jobs = await openJobsDatabase(kind);
      blobs =
        kind === 'postgres'
          ? new DatabaseBlobStore(jobs.storage.db)
          : new FileBlobStore(join(jobs.database.dataDir, 'blobs'));
      smtp = await startSmtp();
    });
    after(async () => {
      await smtp.close();
      await jobs.close();
    });

    const db = () => jobs.storage.db;
    const mailContext = (smtpUrl: string | undefined): MailContext => ({
      db: db(),
      blobs,
      now: clock.now,
      config: parseConfig({
        MOHAR_DATA_DIR: jobs.database.dataDir,
        MOHAR_MAIL_FROM: FROM,
        ...(smtpUrl ? { MOHAR_SMTP_URL: smtpUrl } : {}),
      }),
    });
    const runnerFor = (smtpUrl: string | undefined) =>
      new JobRunner({
        db: db(),
        dialect: jobs.storage.dialect,
        handlers: jobHandlers({ ...mailContext(smtpUrl), mailTimeouts: { connectionTimeoutMs: 2000 } }, [mailSendJob]),
        now: clock.now,
        random: () => 0.5,
        logger: quietLogger(),
        pollIntervalMs: 20,
      });
    const mailRow = (id: string) =>
      db().selectFrom('outbox_mail').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const jobOf = async (mailId: string) => {
      const all = await db().selectFrom('jobs').selectAll().where('kind', '=', 'mail.send').execute();
      return all.find((j) => JSON.parse(j.payload).mail_id === mailId)!;
    };
    const account = () => `acct-${randomUUID()}`;

    function invitation(accountId: string, to: string, overrides: Partial<MailToQueue> = {}): MailToQueue {
      const link = `https://mohar.test/sign/${randomBytes(8).toString('hex')}`;
      const content = invitationMail({
        envelopeTitle: 'Rental <agreement>',
        recipientName: 'Ravi Kumar',
        senderName: 'Acme Estates',
        signingUrl: link,
        message: 'Please sign by Friday.',
      });
      return {
        accountId,
        to,
        toName: 'Ravi Kumar',
        kind: 'invitation',
        envelopeId: randomUUID(),
        recipientId: randomUUID(),
        ...content,
        ...overrides,
      };
    }

    test('queued mails arrive over SMTP with From, To, subject, text with the link, HTML; the row is sent', async () => {
      const acct = account();
      const mail = invitation(acct, 'ravi@example.com');
      const id = await queueMail(db(), mail, clock.now());
      const queued = await mailRow(id);
      assert.equal(queued.status, 'queued');
      assert.equal(queued.attempts, 0);
      const before = smtp.messages.length;
      assert.equal(await runnerFor(smtp.url).runDueJobs(), 1);
      const [received] = (await smtp.waitFor(before + 1)).slice(before);
      assert.ok(received);
      assert.deepEqual(received.to, ['ravi@example.com']);
      assert.equal(received.from, 'sign@mohar.test');
      assert.equal(received.headers.get('from'), FROM);
      assert.equal(received.headers.get('to'), 'Ravi Kumar <ravi@example.com>');
      assert.equal(received.subject, 'Acme Estates sent you “Rental <agreement>” to sign');
      assert.equal(received.subject, mail.subject);
      assert.equal(received.text, mail.text.replace(/\r\n/g, '\n'));
      assert.match(received.text, /Review and sign: https:\/\/mohar\.test\/sign\/[0-9a-f]{16}/);
      assert.ok(received.html?.includes('Rental &lt;agreement&gt;'));
      assert.equal(received.headers.get('auto-submitted'), 'auto-generated');
      const sent = await mailRow(id);
      assert.equal(sent.status, 'sent');
      assert.equal(sent.attempts, 1);
      assert.ok(sent.sent_at);
      assert.equal(received.headers.get('message-id'), sent.message_id);
      assert.equal(sent.message_id, `<${id}@mohar.test>`);
      assert.equal((await jobOf(id)).state, 'done');
    });

    test('the completion mail carries the signed PDF byte for byte', async () => {
      const pdf = Buffer.concat([makePdf({ pages: 2 }), randomBytes(70_000)]);
      const sha256 = await blobs.put(pdf);
      assert.equal(sha256, sha256Hex(pdf));
      const content = completionMail({
        envelopeTitle: 'Rental agreement',
        recipientName: 'Ravi',
        senderName: 'Acme',
        attachmentNames: ['Rental agreement (signed).pdf'],
      });
      const id = await queueMail(
        db(),
        {
          accountId: account(),
          to: 'ravi@example.com',
          kind: 'completion',
          ...content,
          attachments: [
            { filename: 'Rental agreement (signed).pdf', content_type: 'application/pdf', sha256, size: pdf.length },
          ],
        },
        clock.now(),
      );
      const before = smtp.messages.length;
      await runnerFor(smtp.url).runDueJobs();
      const [received] = (await smtp.waitFor(before + 1)).slice(before);
      assert.equal(received!.attachments.length, 1);
      const attachment = received!.attachments[0]!;
      assert.equal(attachment.filename, 'Rental agreement (signed).pdf');
      assert.equal(attachment.contentType, 'application/pdf');
      assert.ok(attachment.content.equals(pdf), 'the attachment is byte-identical');
      assert.match(received!.text, /The signed document is attached:\n- Rental agreement \(signed\)\.pdf/);
      const listed = await listOutbox(db(), (await mailRow(id)).account_id, { limit: 10 });
      assert.deepEqual(listed.items[0]!.attachments, [
        { filename: 'Rental agreement (signed).pdf', content_type: 'application/pdf', sha256, size: pdf.length },
      ]);
    });

    test('SMTP down: the business transaction commits, the mail retries with backoff and ends failed', async () => {
      const down = await closedSmtpUrl();
      const accountId = account();
      const at = clock.now().toISOString();
      // The business change and the mail, in one transaction, as the workflow will do it.
      const mailId = await db()
        .transaction()
        .execute(async (trx) => {
          await trx
            .insertInto('accounts')
            .values({
              id: accountId,
              name: 'Business',
              test_mode: 0,
              suspended: 0,
              monthly_call_limit: null,
              settings: '{}',
              created_at: at,
            })
            .execute();
          return queueMail(trx, invitation(accountId, 'nobody@example.com', { maxAttempts: 3 }), clock.now());
        });
      assert.ok(
        await db().selectFrom('accounts').select('id').where('id', '=', accountId).executeTakeFirst(),
        'the business change committed',
      );

      const runner = runnerFor(down);
      await runner.runDueJobs();
      let row = await mailRow(mailId);
      assert.equal(row.status, 'queued', 'still queued while retries remain');
      assert.equal(row.attempts, 1);
      assert.match(row.last_error ?? '', /ECONNREFUSED|connect/i);
      assert.equal((await jobOf(mailId)).state, 'queued');

      clock.advance(31_000);
      await runner.runDueJobs();
      assert.equal((await mailRow(mailId)).attempts, 2);
      clock.advance(61_000);
      await runner.runDueJobs();
      row = await mailRow(mailId);
      assert.equal(row.status, 'failed');
      assert.equal(row.attempts, 3);
      assert.match(row.last_error ?? '', /ECONNREFUSED|connect/i);
      assert.equal(row.sent_at, null);
      const job = await jobOf(mailId);
      assert.equal(job.state, 'dead');
      assert.equal(job.last_error, row.last_error);
      const dead = await listJobs(db(), { accountId, state: 'dead', limit: 10 });
      assert.deepEqual(
        dead.items.map((j) => j.payload),
        [{ mail_id: mailId }],
      );
      assert.ok(
        await db().selectFrom('accounts').select('id').where('id', '=', accountId).executeTakeFirst(),
        'the business change is still there',
      );
    });

    test('an SMTP server that refuses the message: the reply is kept as last_error', async () => {
      const refusing = await startSmtp({ rejectWith: { code: 550, message: 'mailbox unavailable' } });
      try {
        const id = await queueMail(db(), invitation(account(), 'gone@example.com', { maxAttempts: 1 }), clock.now());
        await runnerFor(refusing.url).runDueJobs();
        const row = await mailRow(id);
        assert.equal(row.status, 'failed');
        assert.match(row.last_error ?? '', /550.*mailbox unavailable/);
      } finally {
        await refusing.close();
      }
    });

    test('without SMTP the mail is kept, and listed', async () => {
      const accountId = account();
      const id = await queueMail(db(), invitation(accountId, 'kept@example.com'), clock.now());
      await runnerFor(undefined).runDueJobs();
      const row = await mailRow(id);
      assert.equal(row.status, 'kept');
      assert.equal(row.sent_at, null);
      assert.equal((await jobOf(id)).state, 'done');
      const page = await listOutbox(db(), accountId, { limit: 10, status: 'kept' });
      assert.deepEqual(
        page.items.map((m) => [m.id, m.status, m.to]),
        [[id, 'kept', 'kept@example.com']],
      );
      assert.equal(page.items[0]!.text, undefined, 'no body unless asked');
      const withBody = await listOutbox(db(), accountId, { limit: 10, includeBody: true });
      assert.match(withBody.items[0]!.text ?? '', /Review and sign: https:/);
    });

    test('a started runner, poked after the commit, sends at once', async () => {
      const runner = runnerFor(smtp.url);
      runner.start();
      try {
        const before = smtp.messages.length;
        const id = await db()
          .transaction()
          .execute((trx) => queueMail(trx, invitation(account(), 'fast@example.com'), clock.now()));
        runner.poke();
        await smtp.waitFor(before + 1, 5000);
        await waitUntil(async () => (await mailRow(id)).status === 'sent', 5000, 'the sent mark');
      } finally {
        await runner.stop();
      }
    });

    test('queueMail in a rolled-back transaction leaves neither mail nor job', async () => {
      const accountId = account();
      await assert.rejects(
        db()
          .transaction()
          .execute(async (trx) => {
            await queueMail(trx, invitation(accountId, 'x@example.com'), clock.now());
            throw new Error('rolled back');
          }),
        /rolled back/,
      );
      assert.equal((await listOutbox(db(), accountId, { limit: 10 })).items.length, 0);
      assert.equal((await listJobs(db(), { accountId, limit: 10 })).items.length, 0);
    });

    test('a dedupe key queues one mail; a repeated send job does not send twice', async () => {
      const accountId = account();
      const first = await queueMail(
        db(),
        invitation(accountId, 'once@example.com', { dedupeKey: `invitation:${accountId}` }),
        clock.now(),
      );
      const again = await queueMail(
        db(),
        invitation(accountId, 'once@example.com', { dedupeKey: `invitation:${accountId}` }),
        clock.now(),
      );
      assert.equal(again, first);
      assert.equal((await listOutbox(db(), accountId, { limit: 10 })).items.length, 1);
      const before = smtp.messages.length;
      const runner = runnerFor(smtp.url);
      await runner.runDueJobs();
      await smtp.waitFor(before + 1);
      // A second job for the same mail (as after a crash between sending and marking): no second copy.
      await db()
        .insertInto('jobs')
        .values({
          id: randomUUID(),
          kind: 'mail.send',
          payload: JSON.stringify({ mail_id: first }),
          state: 'queued',
          attempts: 0,
          max_attempts: 8,
          run_at: clock.now().toISOString(),
          lease_owner: null,
          lease_expires_at: null,
          last_error: null,
          dedupe_key: null,
          account_id: accountId,
          created_at: clock.now().toISOString(),
          updated_at: clock.now().toISOString(),
          finished_at: null,
        })
        .execute();
      assert.equal(await runner.runDueJobs(), 1);
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(smtp.messages.length, before + 1);
    });

    test('a send job for a missing mail is dead at once', async () => {
      const id = randomUUID();
      await db()
        .insertInto('jobs')
        .values({
          id,
          kind: 'mail.send',
          payload: JSON.stringify({ mail_id: randomUUID() }),
          state: 'queued',
          attempts: 0,
          max_attempts: 8,
          run_at: clock.now().toISOString(),
          lease_owner: null,
          lease_expires_at: null,
          last_error: null,
          dedupe_key: null,
          account_id: null,
          created_at: clock.now().toISOString(),
          updated_at: clock.now().toISOString(),
          finished_at: null,
        })
        .execute();
      await runnerFor(smtp.url).runDueJobs();
      const job = await db().selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      assert.equal(job.state, 'dead');
      assert.match(job.last_error ?? '', /does not exist/);
    });

    test('malformed mails are refused before anything is written', async () => {
      const accountId = account();
      for (const bad of [
        { to: 'two@example.com, three@example.com' },
        { to: 'Name <name@example.com>' },
        { to: 'x@example.com\r\nBcc: y@example.com' },
        { subject: 'one\r\nBcc: y@example.com' },
        { attachments: [{ filename: 'a.pdf', content_type: 'application/pdf', sha256: 'not-a-hash', size: 1 }] },
      ] as Partial<MailToQueue>[]) {
        await assert.rejects(
          queueMail(db(), invitation(accountId, 'ok@example.com', bad), clock.now()),
          (e: unknown) => isMoharError(e, 'validation_failed'),
          JSON.stringify(bad),
        );
      }
      assert.equal((await listOutbox(db(), accountId, { limit: 10 })).items.length, 0);
    });
  });
}
