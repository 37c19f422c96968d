/**
 * Issue 16, point 6: automatic reminders, run by the job runner (the hourly reminders.sweep job) with the
 * TestClock moving days. First reminder N days after the recipient's turn began, then every M days, an expiry
 * warning K days before the envelope expires; never more than one reminder a day per recipient (a manual remind
 * counts); only recipients whose turn it is and who have not acted; none once signed or voided, none for
 * delivery "none". Settings: the account's defaults (PUT {api_base}/account/reminders) or the envelope's own.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { scheduleReminderSweep, sweepReminders } from '../../../server/domain/workflow/auto-remind.js';
import { DATABASES } from '../../support/databases.js';
import { makeDraft, sendDraft, type Draft } from '../../support/envelopes.js';
import { makePdf } from '../../support/pdf-fixtures.js';
import { API, useTestServer } from '../../support/server.js';
import { FIELDS, PEOPLE, ROLES, instantiate, jsonPart, multipart } from '../../support/templates.js';

const HOUR = 3600;
const DAY = 24 * HOUR;

for (const kind of DATABASES) {
  describe(`automatic reminders on ${kind}`, () => {
    const t = useTestServer(kind);
    let elapsed = 0;
    /** Moves the clock to `seconds` after the start of the suite, then runs the due jobs (the sweep among them). */
    async function at(seconds: number): Promise<void> {
      assert.ok(seconds >= elapsed, 'time only moves forward');
      t.server.clock.advance(seconds - elapsed);
      elapsed = seconds;
      await t.server.runJobs();
    }
    async function mails(draft: Draft, recipientIndex = 0): Promise<string[]> {
      const rows = await t.server.ctx.db
        .selectFrom('outbox_mail')
        .select(['subject', 'created_at'])
        .where('envelope_id', '=', draft.id)
        .where('recipient_id', '=', draft.recipientIds[recipientIndex]!)
        .where('kind', '=', 'reminder')
        .orderBy('created_at')
        .execute();
      return rows.map((r) => (/expires/i.test(r.subject) ? 'warning' : 'reminder'));
    }
    async function envelope(
      options: {
        reminders?: unknown;
        expire_in_days?: number;
        recipients?: number;
        routing?: 'sequential' | 'parallel';
        delivery?: 'none';
      } = {},
    ): Promise<Draft> {
      const recipients = Array.from({ length: options.recipients ?? 1 }, (_, i) => ({
        name: `Signer ${i + 1}`,
        email: `signer${i + 1}-${Math.random().toString(36).slice(2, 8)}@example.com`,
        sequence: i + 1,
      }));
      const body = {
        ...(options.reminders !== undefined ? { reminders: options.reminders } : {}),
        ...(options.delivery ? { delivery: options.delivery } : {}),
      };
      const draft = await makeDraft(t.server, t.account.key, {
        recipients,
        routing_order: options.routing ?? 'sequential',
        ...(options.expire_in_days ? { expire_in_days: options.expire_in_days } : {}),
        body,
      });
      await sendDraft(t.server, t.account.key, draft);
      return draft;
    }
    async function sign(draft: Draft, recipientIndex = 0): Promise<void> {
      const session = await t.server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
        key: t.account.key,
        json: { recipient_id: draft.recipientIds[recipientIndex], mode: 'redirect' },
      });
      assert.equal(session.statusCode, 201, session.body);
      const token = session.json().signing_url.split('/sign/')[1] as string;
      const signed = await t.server.request('POST', `${API}/signing/${token}`, {
        json: { action: 'sign', consent: true, signature: { kind: 'typed', text: 'Signer' } },
      });
      assert.equal(signed.statusCode, 200, signed.body);
    }

    let byDefaults: Draft;
    let own: Draft;
    let off: Draft;
    let manual: Draft;
    let signedEarly: Draft;
    let sequential: Draft;
    let headless: Draft | undefined;
    before(async () => {
      const defaults = await t.server.request('PUT', `${API}/account/reminders`, {
        key: t.account.key,
        json: { first_after_days: 2, every_days: 3, expiry_warning_days: 2 },
      });
      assert.equal(defaults.statusCode, 200, defaults.body);
      await scheduleReminderSweep(t.server.ctx.db, t.server.clock.now());
      byDefaults = await envelope({ expire_in_days: 11 });
      own = await envelope({ reminders: { first_after_days: 1, every_days: null, expiry_warning_days: null } });
      off = await envelope({ reminders: { first_after_days: null, every_days: null, expiry_warning_days: null } });
      manual = await envelope({ reminders: { first_after_days: 1, every_days: 1, expiry_warning_days: null } });
      signedEarly = await envelope({ reminders: { first_after_days: 1, every_days: 1, expiry_warning_days: null } });
      sequential = await envelope({
        recipients: 2,
        reminders: { first_after_days: 1, every_days: 1, expiry_warning_days: null },
      });
      // delivery "none" exists once issue 16 point 5 is in: then no reminder may be mailed for it.
      const probe = await t.server.request('GET', `${API}/envelopes/${byDefaults.id}`, { key: t.account.key });
      if ('delivery' in probe.json()) {
        headless = await envelope({
          delivery: 'none',
          reminders: { first_after_days: 1, every_days: 1, expiry_warning_days: null },
        });
      }
    });

    test('settings: account defaults through the API; the envelope shows its own', async () => {
      const defaults = await t.server.request('GET', `${API}/account/reminders`, { key: t.account.key });
      assert.deepEqual(defaults.json(), { first_after_days: 2, every_days: 3, expiry_warning_days: 2 });
      const bad = await t.server.request('PUT', `${API}/account/reminders`, {
        key: t.account.key,
        json: { first_after_days: 0, every_days: 3, expiry_warning_days: 2 },
      });
      assert.equal(bad.statusCode, 422);
      assert.equal(
        (await t.server.request('GET', `${API}/envelopes/${own.id}`, { key: t.account.key })).json().reminders
          .first_after_days,
        1,
      );
      assert.equal(
        (await t.server.request('GET', `${API}/envelopes/${byDefaults.id}`, { key: t.account.key })).json().reminders,
        null,
        'null: the account defaults apply',
      );
      const draft = await makeDraft(t.server, t.account.key, {
        recipients: [{ name: 'Asha', email: 'asha-patch@example.com' }],
      });
      const patch = (json: unknown) =>
        t.server.request('PATCH', `${API}/envelopes/${draft.id}`, {
          key: t.account.key,
          json,
          headers: { 'content-type': 'application/merge-patch+json' },
        });
      const set = await patch({ reminders: { first_after_days: 4, every_days: 2, expiry_warning_days: null } });
      assert.equal(set.statusCode, 200, set.body);
      assert.deepEqual(set.json().reminders, { first_after_days: 4, every_days: 2, expiry_warning_days: null });
      const invalid = await patch({ reminders: { first_after_days: 4, every_days: 400, expiry_warning_days: null } });
      assert.equal(invalid.statusCode, 422);
      assert.equal((await patch({ reminders: null })).json().reminders, null);
      const sent = (json: unknown) =>
        t.server.request('PATCH', `${API}/envelopes/${off.id}`, {
          key: t.account.key,
          json,
          headers: { 'content-type': 'application/merge-patch+json' },
        });
      const onTheWay = await sent({ reminders: { first_after_days: 30 } });
      assert.equal(onTheWay.statusCode, 200, 'reminders alone may change while the envelope is in progress');
      assert.equal(onTheWay.json().reminders.first_after_days, 30);
      const notDraft = await sent({ reminders: null, title: 'Changed' });
      assert.equal(notDraft.statusCode, 409);
      assert.equal(notDraft.json().code, 'envelope_not_draft');
    });

    test('a template carries default reminders to the envelopes made from it', async () => {
      const created = await multipart(t.server, 'POST', `${API}/templates`, t.account.key, [
        jsonPart('template', {
          name: 'With reminders',
          settings: { reminders: { first_after_days: 5, expiry_warning_days: 2 } },
          roles: ROLES,
          documents: [{ file: 'contract', fields: FIELDS }],
        }),
        { field: 'contract', filename: 'sale.pdf', bytes: makePdf({ pages: 2 }) },
      ]);
      assert.equal(created.statusCode, 201, created.body);
      assert.deepEqual(created.json().settings.reminders, {
        first_after_days: 5,
        every_days: null,
        expiry_warning_days: 2,
      });
      const envelope = await instantiate(t.server, t.account.key, created.json().template_id, { recipients: PEOPLE });
      assert.equal(envelope.statusCode, 201, envelope.body);
      assert.deepEqual(envelope.json().reminders, { first_after_days: 5, every_days: null, expiry_warning_days: 2 });
    });

    test('day by day: first after N days, every M, the expiry warning K days before, at most once a day, only whose turn it is', async () => {
      await manualRemind(manual, 2 * HOUR);
      await sign(signedEarly);
      await at(1 * DAY + 1 * HOUR);
      assert.deepEqual(await mails(own), ['reminder'], "the envelope's own first_after_days: 1");
      assert.deepEqual(await mails(byDefaults), [], 'the account default waits 2 days');
      assert.deepEqual(await mails(off), []);
      assert.deepEqual(
        await mails(manual),
        ['reminder'],
        'the manual remind 23 hours ago counts: the automatic one waits',
      );
      assert.deepEqual(await mails(sequential, 0), ['reminder']);
      assert.deepEqual(await mails(sequential, 1), [], 'not their turn');
      await sign(sequential, 0);

      await at(1 * DAY + 3 * HOUR);
      assert.deepEqual(await mails(manual), ['reminder', 'reminder'], 'a day after the manual one');
      assert.deepEqual(await mails(signedEarly), [], 'signed before its first reminder');
      assert.deepEqual(await mails(sequential, 1), [], 'their turn began an hour ago');
      assert.equal(
        (
          await t.server.request('POST', `${API}/envelopes/${manual.id}/void`, {
            key: t.account.key,
            json: { reason: 'not needed' },
          })
        ).statusCode,
        200,
      );

      await at(2 * DAY + 2 * HOUR);
      assert.deepEqual(await mails(byDefaults), ['reminder'], 'two days after sending');
      assert.deepEqual(await mails(own), ['reminder'], 'no every_days: one reminder only');
      assert.deepEqual(
        await mails(sequential, 1),
        ['reminder'],
        'a day into their turn (it began when the first signer signed, at 1d+1h)',
      );
      assert.deepEqual(await mails(manual), ['reminder', 'reminder'], 'voided: no more');

      await at(3 * DAY + 3 * HOUR);
      assert.deepEqual(await mails(byDefaults), ['reminder'], 'every 3 days, not every day');
      await at(5 * DAY + 3 * HOUR);
      assert.deepEqual(await mails(byDefaults), ['reminder', 'reminder']);
      await at(8 * DAY + 3 * HOUR);
      assert.deepEqual(await mails(byDefaults), ['reminder', 'reminder', 'reminder']);
      await at(9 * DAY + 1 * HOUR);
      assert.deepEqual(
        await mails(byDefaults),
        ['reminder', 'reminder', 'reminder'],
        'the warning is due from day 9 (expiry at day 11) but waits a day after the last reminder',
      );
      await at(9 * DAY + 4 * HOUR);
      assert.deepEqual(await mails(byDefaults), ['reminder', 'reminder', 'reminder', 'warning']);
      await at(10 * DAY + 5 * HOUR);
      assert.deepEqual(
        await mails(byDefaults),
        ['reminder', 'reminder', 'reminder', 'warning'],
        'once; the next reminder would fall after the expiry',
      );
      assert.deepEqual(await mails(off), [], 'reminders off: none, ever');
      if (headless) assert.deepEqual(await mails(headless), [], 'delivery none: no reminder mail');

      const trail = (
        await t.server.request('GET', `${API}/envelopes/${byDefaults.id}/audit-trail`, { key: t.account.key })
      ).json();
      const reminders = trail.events.filter((e: { action: string }) => e.action === 'reminder.sent');
      assert.equal(reminders.length, 4, 'each automatic reminder and the warning are audited');
    });

    test('two sweeps at once mail a due recipient once', async () => {
      const draft = await envelope({ reminders: { first_after_days: 1, every_days: 1, expiry_warning_days: null } });
      t.server.clock.advance(DAY + HOUR);
      elapsed += DAY + HOUR;
      const counts = await Promise.all([
        sweepReminders(t.server.ctx),
        sweepReminders(t.server.ctx),
        sweepReminders(t.server.ctx),
      ]);
      assert.deepEqual(await mails(draft), ['reminder']);
      assert.ok(counts.reduce((a, b) => a + b, 0) >= 1);
    });

    async function manualRemind(draft: Draft, when: number): Promise<void> {
      await at(when);
      const response = await t.server.request('POST', `${API}/envelopes/${draft.id}/remind`, { key: t.account.key });
      assert.equal(response.json().reminded.length, 1, response.body);
    }
  });
}
