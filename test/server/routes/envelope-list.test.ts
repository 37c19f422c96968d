import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { listEnvelopes } from '../../../server/domain/envelopes/list-envelopes.js';
import { DATABASES } from '../../support/databases.js';
import { makeDraft, sendDraft } from '../../support/envelopes.js';
import { API, useTestServer } from '../../support/server.js';

interface Summary {
  id: string;
  title: string;
  status: string;
  external_id: string | null;
  created_at: string;
  recipients: { name: string; email: string; role: string; status: string }[];
}
interface Page {
  envelopes: Summary[];
  next_cursor: string | null;
}

for (const kind of DATABASES) {
  describe(`GET /envelopes on ${kind}`, () => {
    const t = useTestServer(kind);
    const ids: Record<string, string> = {};
    let day1 = '';
    let day2 = '';

    const create = async (name: string, json: Record<string, unknown>) => {
      const response = await t.server.request('POST', `${API}/envelopes`, { key: t.account.key, json });
      assert.equal(response.statusCode, 201, response.body);
      ids[name] = response.json().id;
    };
    const list = async (query: string, key = t.account.key): Promise<Page> => {
      const response = await t.server.request('GET', `${API}/envelopes${query}`, { key });
      assert.equal(response.statusCode, 200, response.body);
      return response.json();
    };
    const titles = async (query: string) => (await list(query)).envelopes.map((e) => e.title);

    before(async () => {
      // Day 1: three drafts; day 2: the rest, one of them sent, one voided.
      day1 = t.server.clock.now().toISOString().slice(0, 10);
      await create('lease', {
        title: 'Lease agreement flat 4B',
        external_id: 'INV-2026-00123',
        recipients: [
          { name: 'Asha Rao', email: 'asha.rao@example.com' },
          { name: 'Vikram Shah', email: 'vikram@shah.in', role: 'cc' },
        ],
      });
      await create('nda', { title: 'NDA Mohar Labs', recipients: [{ name: 'Ravi Kumar', email: 'ravi@example.org' }] });
      await create('hindi', { title: 'किरायानामा अनुबंध', recipients: [{ name: 'सीता देवी', email: 'sita@example.in' }] });
      t.server.clock.advance(2 * 86_400);
      day2 = t.server.clock.now().toISOString().slice(0, 10);
      await create('empty', { title: 'Purchase order 100%_off' });
      await create('voided', { title: 'Old lease', recipients: [{ name: 'Asha Rao', email: 'asha.rao@example.com' }] });
      assert.equal(
        (
          await t.server.request('POST', `${API}/envelopes/${ids.voided}/void`, {
            key: t.account.key,
            json: { reason: 'replaced' },
          })
        ).statusCode,
        200,
      );
      const draft = await makeDraft(t.server, t.account.key, {
        recipients: [{ name: 'Meera Iyer', email: 'meera@iyer.example' }],
      });
      await sendDraft(t.server, t.account.key, draft);
      ids.sent = draft.id;
      await t.server.ctx.db
        .updateTable('envelopes')
        .set({ template_id: '0193f0e2-6c1a-7b3e-9d2f-4a5b6c7d8e9f', template_version: 2 })
        .where('id', '=', ids.nda!)
        .execute();
      await t.server.ctx.db
        .updateTable('envelopes')
        .set({ bulk_send_id: '0193f0e2-6c1a-7b3e-9d2f-aaaaaaaaaaaa', row_index: 0 })
        .where('id', '=', ids.hindi!)
        .execute();
    });

    test('newest first, with a compact summary of each envelope and its recipients', async () => {
      const page = await list('');
      assert.deepEqual(
        page.envelopes.map((e) => e.id),
        [ids.sent, ids.voided, ids.empty, ids.hindi, ids.nda, ids.lease],
      );
      assert.equal(page.next_cursor, null);
      const lease = page.envelopes.find((e) => e.id === ids.lease)!;
      assert.equal(lease.external_id, 'INV-2026-00123');
      assert.deepEqual(
        lease.recipients.map((r) => [r.name, r.email, r.role, r.status]),
        [
          ['Asha Rao', 'asha.rao@example.com', 'signer', 'created'],
          ['Vikram Shah', 'vikram@shah.in', 'cc', 'created'],
        ],
      );
      const sent = page.envelopes.find((e) => e.id === ids.sent)! as Summary & { sent_at: string | null };
      assert.equal(sent.status, 'sent');
      assert.ok(sent.sent_at);
      const nda = page.envelopes.find((e) => e.id === ids.nda)! as Summary & {
        template_id: string;
        template_version: number;
      };
      assert.deepEqual([nda.template_id, nda.template_version], ['0193f0e2-6c1a-7b3e-9d2f-4a5b6c7d8e9f', 2]);
    });

    test('cursor paging returns every envelope once, in order', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await list(`?limit=4${cursor ? `&cursor=${cursor}` : ''}`);
        assert.ok(page.envelopes.length <= 4);
        seen.push(...page.envelopes.map((e) => e.id));
        cursor = page.next_cursor;
      } while (cursor);
      assert.deepEqual(seen, [ids.sent, ids.voided, ids.empty, ids.hindi, ids.nda, ids.lease]);
      // Several statuses are walked one by one and merged: the pages still cover each envelope once.
      const first = await list('?status=draft&status=voided&limit=2');
      const second = await list(`?status=draft&status=voided&limit=2&cursor=${first.next_cursor}`);
      const third = await list(`?status=draft&status=voided&limit=2&cursor=${second.next_cursor}`);
      assert.deepEqual(
        [...first.envelopes, ...second.envelopes, ...third.envelopes].map((e) => e.id),
        [ids.voided, ids.empty, ids.hindi, ids.nda, ids.lease],
      );
      assert.equal(third.next_cursor, null);
    });

    test('q searches title, external_id, recipient names and e-mails from a word start, ignoring case', async () => {
      assert.deepEqual(await titles('?q=asha'), ['Old lease', 'Lease agreement flat 4B']);
      assert.deepEqual(await titles('?q=ASHA%20RAO'), ['Old lease', 'Lease agreement flat 4B']);
      assert.deepEqual(
        await titles('?q=rao@ex'),
        ['Old lease', 'Lease agreement flat 4B'],
        'inside an e-mail, from a word start',
      );
      assert.deepEqual(await titles('?q=vikram@shah.in'), ['Lease agreement flat 4B'], 'a whole e-mail');
      assert.deepEqual(await titles('?q=00123'), ['Lease agreement flat 4B'], 'a part of the external_id');
      assert.deepEqual(await titles('?q=inv-2026'), ['Lease agreement flat 4B']);
      assert.deepEqual(await titles('?q=sha'), ['Lease agreement flat 4B'], '"sha" starts "Shah", not "Asha"');
      assert.deepEqual(await titles('?q=lease'), ['Old lease', 'Lease agreement flat 4B']);
      assert.deepEqual(await titles('?q=सीता'), ['किरायानामा अनुबंध']);
      assert.deepEqual(await titles('?q=100%25_'), ['Purchase order 100%_off'], '% and _ are literal');
      assert.deepEqual(await titles('?q=100_'), []);
      assert.deepEqual(await titles('?q=nobody'), []);
      assert.deepEqual(await titles('?q=%20%20'), await titles(''), 'a blank q is no filter');
    });

    test('the common-query path (list walk with LIKE) answers exactly like the rare-query path (terms)', async () => {
      for (const q of ['asha', 'rao@ex', 'sha', '00123', 'lease', '100%_', 'सीता', 'e', '@example.com']) {
        for (const status of [undefined, ['draft' as const], ['draft' as const, 'voided' as const]]) {
          const query = { q, limit: 2, ...(status ? { status } : {}) };
          const rare = await listEnvelopes(t.server.ctx, t.account.accountId, query);
          const common = await listEnvelopes(t.server.ctx, t.account.accountId, query, 0);
          assert.deepEqual(common, rare, `q=${q} status=${status}`);
        }
      }
    });

    test('filters combine: status, dates, template, bulk send and q', async () => {
      assert.deepEqual(await titles('?status=voided'), ['Old lease']);
      assert.deepEqual(await titles('?status=sent&status=voided'), ['Agreement', 'Old lease']);
      assert.deepEqual(await titles('?status=draft&q=lease'), ['Lease agreement flat 4B']);
      assert.deepEqual(await titles(`?created_to=${day1}`), [
        'किरायानामा अनुबंध',
        'NDA Mohar Labs',
        'Lease agreement flat 4B',
      ]);
      assert.deepEqual(await titles(`?created_from=${day2}&q=lease`), ['Old lease']);
      assert.deepEqual(await titles(`?created_from=${day1}&created_to=${day1}&q=asha`), ['Lease agreement flat 4B']);
      const sent = (await list('?status=sent')).envelopes[0]!;
      assert.deepEqual(
        await titles(`?created_from=${encodeURIComponent(sent.created_at)}`),
        ['Agreement'],
        'a date-time bound is that instant',
      );
      assert.deepEqual(
        (await titles(`?created_to=${encodeURIComponent(sent.created_at)}`))[0],
        'Agreement',
        'both bounds are included',
      );
      assert.deepEqual(await titles('?template_id=0193f0e2-6c1a-7b3e-9d2f-4a5b6c7d8e9f'), ['NDA Mohar Labs']);
      assert.deepEqual(await titles('?template_id=0193f0e2-6c1a-7b3e-9d2f-4a5b6c7d8e9f&status=sent'), []);
      assert.deepEqual(await titles('?bulk_send_id=0193f0e2-6c1a-7b3e-9d2f-aaaaaaaaaaaa&q=sita'), ['किरायानामा अनुबंध']);
    });

    test('bad filters and cursors are 422 with the parameter named', async () => {
      for (const query of [
        '?status=lost',
        '?limit=101',
        '?limit=0',
        '?created_from=yesterday',
        '?template_id=nope',
        '?cursor=bm9wZQ',
      ]) {
        const response = await t.server.request('GET', `${API}/envelopes${query}`, { key: t.account.key });
        assert.equal(response.statusCode, 422, `${query}: ${response.body}`);
        assert.equal(response.json().code, 'validation_failed');
      }
      assert.equal((await t.server.request('GET', `${API}/envelopes`)).statusCode, 401);
    });

    test('another account sees none of these, also by search', async () => {
      const other = await t.server.newAccount();
      assert.deepEqual((await list('', other.key)).envelopes, []);
      assert.deepEqual((await list('?q=asha', other.key)).envelopes, []);
      await t.server.request('POST', `${API}/envelopes`, {
        key: other.key,
        json: { title: 'Their lease', recipients: [{ name: 'Asha Rao', email: 'asha.rao@example.com' }] },
      });
      assert.deepEqual(
        (await list('?q=asha', other.key)).envelopes.map((e) => e.title),
        ['Their lease'],
      );
      assert.deepEqual(await titles('?q=asha'), ['Old lease', 'Lease agreement flat 4B']);
    });
  });
}
