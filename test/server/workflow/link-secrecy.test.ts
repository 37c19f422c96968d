/**
 * Issue 16, point 10: signing links never rest in clear text in the mail outbox or in Idempotency-Key replay
 * rows. The raw rows (read with SQL, not through the code that decrypts them) hold no token; the mail
 * delivered over SMTP, the outbox listing and the idempotent replay still carry a working link.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { DATABASES } from '../../support/databases.js';
import { makeDraft, sendDraft } from '../../support/envelopes.js';
import { API, LEGACY, startTestServer, type TestAccount, type TestServer } from '../../support/server.js';
import { startSmtp, type SmtpTestServer } from '../../support/smtp.js';
import { legacyCreate, startDocServer, tokenOf, type DocServer } from '../legacy/helpers.js';

const LINK = /\/sign\/[A-Za-z0-9_-]{20,}/;

async function rawRows(server: TestServer, table: 'outbox_mail' | 'idempotency_keys'): Promise<string> {
  const result = await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(table)}`.execute(server.ctx.db);
  return JSON.stringify(result.rows);
}

for (const kind of DATABASES) {
  describe(`signing links at rest on ${kind}`, () => {
    let smtp: SmtpTestServer;
    let docs: DocServer;
    let server: TestServer;
    let account: TestAccount;
    before(async () => {
      smtp = await startSmtp();
      docs = await startDocServer();
      server = await startTestServer(kind, {
        MOHAR_SMTP_URL: smtp.url,
        MOHAR_BASE_URL: 'http://sign.test',
        MOHAR_FETCH_ALLOW_PRIVATE: '1',
      });
      account = await server.newAccount();
    });
    after(async () => {
      await server?.close();
      await smtp?.close();
      await docs?.close();
    });

    test('invitation and reminder mails: no token in the outbox rows; the delivered mail and the listing have a working link', async () => {
      const draft = await makeDraft(server, account.key, {
        recipients: [{ name: 'Asha Rao', email: 'asha-secret@example.com' }],
      });
      await sendDraft(server, account.key, draft);
      server.clock.advance(3601);
      assert.equal(
        (await server.request('POST', `${API}/envelopes/${draft.id}/remind`, { key: account.key })).statusCode,
        200,
      );
      const stored = await rawRows(server, 'outbox_mail');
      assert.doesNotMatch(stored, LINK, 'no signing link in the raw outbox rows before sending');
      await server.runJobs();
      const mails = smtp.messages.filter((m) => m.to.includes('asha-secret@example.com'));
      assert.equal(mails.length, 2, 'invitation and reminder delivered');
      const tokens = mails.map((m) => /http:\/\/sign\.test\/sign\/([A-Za-z0-9_-]+)/.exec(m.text)?.[1]);
      for (const token of tokens) assert.ok(token, 'the delivered mail carries the link');
      const after = await rawRows(server, 'outbox_mail');
      assert.doesNotMatch(after, LINK, 'nor after sending');
      for (const token of tokens) assert.ok(!after.includes(token!), 'the token is nowhere in the outbox rows');
      // The reminder's link is the recipient's one kept link (it revoked the invitation's); the two mails may
      // reach the SMTP sink in either order.
      const reminderToken = tokens[mails.findIndex((m) => m.subject.startsWith('Reminder:'))];
      assert.ok(reminderToken, 'one of the two mails is the reminder');
      const view = await server.request('GET', `${API}/signing/${reminderToken}`);
      assert.equal(view.statusCode, 200, view.body);
      const listed = await server.request('GET', `${LEGACY}/mail/outbox/?envelope_id=${draft.id}&include=body`, {
        token: await server.login(account.email, account.password),
      });
      assert.equal(listed.statusCode, 200, listed.body);
      const listing = listed.json();
      assert.ok(
        listing.items.some((m: { text: string }) => m.text.includes(`/sign/${reminderToken}`)),
        'the account admin still reads the body',
      );
    });

    test('an idempotent legacy create with links: no token in the replay row; the replay answers the same working link', async () => {
      const first = await legacyCreate(server, account.key, {
        docUrl: `${docs.base}/doc.pdf`,
        mail: false,
        idempotencyKey: 'links-at-rest',
      });
      assert.equal(first.statusCode, 200, first.body);
      const links = first.json().signing_info.map((s: { signing_url: string }) => tokenOf(s.signing_url)) as string[];
      assert.ok(links.length > 0);
      const stored = await rawRows(server, 'idempotency_keys');
      assert.doesNotMatch(stored, LINK, 'no signing link in the raw idempotency rows');
      for (const token of links) assert.ok(!stored.includes(token), 'the token is nowhere in the idempotency rows');
      const again = await legacyCreate(server, account.key, {
        docUrl: `${docs.base}/doc.pdf`,
        mail: false,
        idempotencyKey: 'links-at-rest',
      });
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.deepEqual(again.json(), first.json());
      assert.equal((await server.request('GET', `${API}/signing/${links[0]}`)).statusCode, 200);
    });

    test('after mail, reminders and an idempotent create with links, no table but signing_sessions (hashes) holds a link', async () => {
      const tables = (await server.ctx.db.introspection.getTables())
        .map((t) => t.name)
        .filter((name) => name !== 'blobs' && !name.startsWith('kysely_'));
      assert.ok(tables.includes('outbox_mail') && tables.includes('events'));
      for (const table of tables) {
        const result = await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(table)}`.execute(server.ctx.db);
        const text = JSON.stringify(result.rows, (_key, value: unknown) =>
          value instanceof Uint8Array ? undefined : value,
        );
        assert.doesNotMatch(text, LINK, `no signing link in ${table}`);
      }
    });
  });
}
