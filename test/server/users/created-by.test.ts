/**
 * Issue 15: envelopes and templates record the console user who created them (created_by), and
 * GET /envelopes?mine=true and GET /templates?mine=true list the login's own. API-key creations have no
 * creator and are nobody's; another account's users see none of these.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { DATABASES } from '../../support/databases.js';
import { makePdf } from '../../support/pdf-fixtures.js';
import {
  API,
  LEGACY,
  multipartBody,
  startTestServer,
  type TestAccount,
  type TestServer,
} from '../../support/server.js';
import { FIELDS, PEOPLE, ROLES } from '../../support/templates.js';

const PASSWORD = 'a long enough passphrase';

interface User {
  id: string;
  email: string;
  token: string;
}

for (const kind of DATABASES) {
  describe(`created_by and ?mine=true on ${kind}`, () => {
    let server: TestServer;
    let account: TestAccount;
    let other: TestAccount;
    let admin: User;
    let sender: User;
    const made = { admin: [] as string[], sender: [] as string[], key: [] as string[], other: [] as string[] };
    const templates = { admin: [] as string[], sender: [] as string[], key: [] as string[] };

    async function invite(by: string, role: string): Promise<User> {
      const email = `${role}-${randomBytes(3).toString('hex')}@test.local`;
      const invited = await server.request('POST', `${LEGACY}/users/`, { token: by, json: { email, role } });
      assert.equal(invited.statusCode, 201, invited.body);
      const mail = await server.ctx.db
        .selectFrom('outbox_mail')
        .select('text')
        .where('to_address', '=', email)
        .executeTakeFirstOrThrow();
      const link = decodeURIComponent(/set-password\?token=(\S+)/.exec(mail.text)![1]!);
      assert.equal(
        (await server.request('POST', `${LEGACY}/users/set-password/`, { json: { token: link, password: PASSWORD } }))
          .statusCode,
        200,
      );
      return { id: invited.json().id, email, token: await server.login(email, PASSWORD) };
    }

    const auth = (who: User | string) => (typeof who === 'string' ? { key: who } : { token: who.token });

    async function createEnvelope(
      who: User | string,
      title: string,
    ): Promise<Record<string, unknown> & { id: string }> {
      const response = await server.request('POST', `${API}/envelopes`, {
        ...auth(who),
        json: { title, recipients: [{ name: 'Asha Rao', email: 'asha@example.com' }] },
      });
      assert.equal(response.statusCode, 201, response.body);
      return response.json();
    }

    async function createTemplate(
      who: User | string,
      name: string,
    ): Promise<Record<string, unknown> & { template_id: string }> {
      const form = multipartBody([
        {
          field: 'template',
          bytes: Buffer.from(JSON.stringify({ name, roles: ROLES, documents: [{ file: 'contract', fields: FIELDS }] })),
        },
        { field: 'contract', filename: 'sale.pdf', bytes: makePdf({ pages: 2 }) },
      ]);
      const headers: Record<string, string> = {
        'content-type': form.contentType,
        ...(typeof who === 'string' ? { 'x-api-key': who } : { authorization: `Bearer ${who.token}` }),
      };
      const response = await server.app.inject({
        method: 'POST',
        url: `${API}/templates`,
        headers,
        payload: form.body,
      });
      assert.equal(response.statusCode, 201, response.body);
      return response.json();
    }

    const list = (who: User | string, path: string) => server.request('GET', `${API}/${path}`, auth(who));

    before(async () => {
      server = await startTestServer(kind);
      account = await server.newAccount();
      other = await server.newAccount();
      admin = await invite(account.token, 'admin');
      sender = await invite(admin.token, 'sender');

      for (const [who, ids] of [
        [admin, made.admin],
        [sender, made.sender],
        [account.key, made.key],
        [other.key, made.other],
      ] as const) {
        for (const n of [1, 2]) ids.push((await createEnvelope(who, `Lease ${n}`)).id);
      }
      // The other account's own login creates one too: still not visible to this account's users.
      const otherLogin: User = { id: '', email: other.email, token: other.token };
      made.other.push((await createEnvelope(otherLogin, 'Elsewhere')).id);
    });
    after(() => server.close());

    test('an envelope shows who created it: the user (e-mail too) on create, read and list; null for an API key', async () => {
      const fresh = await createEnvelope(sender, 'Sale deed');
      made.sender.push(fresh.id);
      assert.deepEqual(fresh.created_by, { user_id: sender.id, email: sender.email });
      const read = (await server.request('GET', `${API}/envelopes/${fresh.id}`, { key: account.key })).json();
      assert.deepEqual(read.created_by, { user_id: sender.id, email: sender.email });
      const byKey = (await server.request('GET', `${API}/envelopes/${made.key[0]}`, { token: admin.token })).json();
      assert.equal(byKey.created_by, null);

      const items = (await list(account.key, 'envelopes?limit=100')).json().envelopes as {
        id: string;
        created_by: { user_id: string; email: string } | null;
      }[];
      assert.deepEqual(items.find((e) => e.id === made.admin[0])!.created_by, {
        user_id: admin.id,
        email: admin.email,
      });
      assert.deepEqual(items.find((e) => e.id === fresh.id)!.created_by, { user_id: sender.id, email: sender.email });
      assert.equal(items.find((e) => e.id === made.key[0])!.created_by, null);
    });

    test("the envelope's first audit row names the user who created it; an API key's stays api_key", async () => {
      const row = (id: string) =>
        server.ctx.db
          .selectFrom('audit_events')
          .select(['actor_type', 'actor_id', 'action'])
          .where('envelope_id', '=', id)
          .where('seq', '=', 1)
          .executeTakeFirstOrThrow();
      assert.deepEqual(await row(made.admin[0]!), {
        actor_type: 'user',
        actor_id: admin.id,
        action: 'envelope.created',
      });
      assert.deepEqual(await row(made.key[0]!), { actor_type: 'api_key', actor_id: null, action: 'envelope.created' });
    });

    test("GET /envelopes?mine=true: each login its own, newest first, paged; never an API key's; never another account's", async () => {
      const mine = async (who: User) =>
        ((await list(who, 'envelopes?mine=true&limit=100')).json().envelopes as { id: string }[]).map((e) => e.id);
      assert.deepEqual(new Set(await mine(sender)), new Set(made.sender));
      assert.deepEqual(await mine(admin), [...made.admin].reverse());
      const otherMine = await mine({ id: '', email: other.email, token: other.token });
      assert.deepEqual(otherMine, [made.other[2]]);

      // Paging stays inside the filter; mine combines with the other filters.
      const first = (await list(admin, 'envelopes?mine=true&limit=1')).json();
      assert.deepEqual(
        first.envelopes.map((e: { id: string }) => e.id),
        [made.admin[1]],
      );
      const second = (await list(admin, `envelopes?mine=true&limit=1&cursor=${first.next_cursor}`)).json();
      assert.deepEqual(
        second.envelopes.map((e: { id: string }) => e.id),
        [made.admin[0]],
      );
      assert.equal(second.next_cursor, null);
      const drafts = (await list(sender, 'envelopes?mine=true&status=draft&status=sent&q=sale')).json().envelopes as {
        id: string;
      }[];
      assert.deepEqual(
        drafts.map((e) => e.id),
        [made.sender[2]],
      );
      assert.equal(
        (await list(sender, 'envelopes?mine=false')).json().envelopes.length,
        7,
        'mine=false: the whole account',
      );
    });

    test('mine=true with an API key is 422 with a clear message', async () => {
      for (const path of ['envelopes?mine=true', 'templates?mine=true']) {
        const response = await list(account.key, path);
        assert.equal(response.statusCode, 422, path);
        assert.equal(response.json().code, 'validation_failed');
        assert.match(response.json().detail ?? response.json().title, /login token/);
      }
    });

    test("templates: created_by on every create form and on instantiate; ?mine=true lists the login's own", async () => {
      const uploaded = await createTemplate(sender, 'Sender sale');
      templates.sender.push(uploaded.template_id);
      assert.deepEqual(uploaded.created_by, { user_id: sender.id, email: sender.email });
      templates.key.push((await createTemplate(account.key, 'Key sale')).template_id);

      const fromEnvelope = await server.request('POST', `${API}/templates`, {
        token: admin.token,
        json: { source_envelope_id: made.admin[0], name: 'From lease' },
      });
      assert.equal(fromEnvelope.statusCode, 201, fromEnvelope.body);
      assert.deepEqual(fromEnvelope.json().created_by, { user_id: admin.id, email: admin.email });
      templates.admin.push(fromEnvelope.json().template_id);

      const portable = (
        await server.request('GET', `${API}/templates/${templates.key[0]}?include=documents`, { key: account.key })
      ).json();
      assert.equal(portable.created_by, null);
      const imported = await server.request('POST', `${API}/templates`, {
        token: admin.token,
        json: { ...portable, name: 'Imported sale' },
      });
      assert.equal(imported.statusCode, 201, imported.body);
      assert.deepEqual(
        imported.json().created_by,
        { user_id: admin.id, email: admin.email },
        'the importer, not the exported created_by',
      );
      templates.admin.push(imported.json().template_id);

      const read = (
        await server.request('GET', `${API}/templates/${templates.sender[0]}`, { token: admin.token })
      ).json();
      assert.deepEqual(read.created_by, { user_id: sender.id, email: sender.email });

      const mine = async (who: User) =>
        (await list(who, 'templates?mine=true')).json().templates as { template_id: string; created_by: unknown }[];
      assert.deepEqual(
        (await mine(sender)).map((t) => t.template_id),
        templates.sender,
      );
      assert.deepEqual(
        (await mine(admin)).map((t) => t.template_id),
        [...templates.admin].reverse(),
      );
      assert.deepEqual((await mine(admin))[0]!.created_by, { user_id: admin.id, email: admin.email });
      assert.deepEqual(await mine({ id: '', email: other.email, token: other.token }), []);
      const all = (await list(account.key, 'templates')).json().templates as {
        template_id: string;
        created_by: unknown;
      }[];
      assert.equal(all.length, 4);
      assert.equal(all.find((t) => t.template_id === templates.key[0])!.created_by, null);

      const instantiated = await server.request('POST', `${API}/templates/${templates.key[0]}/instantiate`, {
        token: sender.token,
        json: { recipients: PEOPLE },
        headers: { 'idempotency-key': `mine-${kind}` },
      });
      assert.equal(instantiated.statusCode, 201, instantiated.body);
      assert.deepEqual(instantiated.json().created_by, { user_id: sender.id, email: sender.email });
      const ids = ((await list(sender, 'envelopes?mine=true&limit=100')).json().envelopes as { id: string }[]).map(
        (e) => e.id,
      );
      assert.ok(ids.includes(instantiated.json().id));
    });
  });
}
