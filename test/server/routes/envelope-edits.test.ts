import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DATABASES } from '../../support/databases.js';
import { makeDraft, sendDraft } from '../../support/envelopes.js';
import { makePdf } from '../../support/pdf-fixtures.js';
import { API, useTestServer } from '../../support/server.js';

for (const kind of DATABASES) {
  describe(`draft edits on ${kind}`, () => {
    const t = useTestServer(kind);
    const call = (
      method: string,
      path: string,
      json?: unknown,
      headers: Record<string, string> = {},
      key = t.account.key,
    ) => t.server.request(method, `${API}/envelopes${path}`, { key, headers, ...(json === undefined ? {} : { json }) });
    const get = async (id: string) => (await call('GET', `/${id}`)).json();
    const search = async (q: string) =>
      (await call('GET', `?q=${encodeURIComponent(q)}`)).json().envelopes.map((e: { id: string }) => e.id);

    test('PATCH /envelopes/{id} is a merge patch on the draft settings', async () => {
      const created = (
        await call('POST', '', {
          title: 'Lease',
          message: 'Please sign',
          external_id: 'lease-1',
          expire_in_days: 7,
          metadata: { deal: 1, keep: 'yes', drop: true },
        })
      ).json();
      const response = await call(
        'PATCH',
        `/${created.id}`,
        {
          title: ' Lease (revised) ',
          message: null,
          routing_order: 'parallel',
          expire_in_days: 30,
          redirect_url: 'https://example.com/done',
          metadata: { deal: 2, drop: null, added: [1] },
        },
        { 'content-type': 'application/merge-patch+json' },
      );
      assert.equal(response.statusCode, 200, response.body);
      const envelope = response.json();
      assert.equal(envelope.title, 'Lease (revised)');
      assert.equal(envelope.message, null);
      assert.equal(envelope.routing_order, 'parallel');
      assert.equal(envelope.expire_in_days, 30);
      assert.equal(envelope.redirect_url, 'https://example.com/done');
      assert.deepEqual(envelope.metadata, { deal: 2, keep: 'yes', added: [1] });
      assert.equal(envelope.external_id, 'lease-1', 'absent members stay');
      assert.deepEqual(await get(created.id), envelope);
      assert.deepEqual(await search('revised'), [created.id], 'the new title is searchable');
      assert.deepEqual(await search('lease-1'), [created.id]);
      const cleared = (await call('PATCH', `/${created.id}`, { external_id: null, metadata: null })).json();
      assert.equal(cleared.external_id, null);
      assert.equal(cleared.metadata, null);
      assert.deepEqual(await search('lease-1'), [], 'the old external_id is no longer found');
    });

    test('PATCH refuses what it cannot change, with the member named', async () => {
      const created = (await call('POST', '', { title: 'x' })).json();
      for (const [body, path] of [
        [{ title: null }, '/title'],
        [{ routing_order: null }, '/routing_order'],
        [{ recipients: [] }, '/recipients'],
        [{ status: 'sent' }, '/status'],
        [{ expire_in_days: 0 }, '/expire_in_days'],
        [{ redirect_url: 'ftp://example.com/' }, '/redirect_url'],
      ] as const) {
        const response = await call('PATCH', `/${created.id}`, body);
        assert.equal(response.statusCode, 422, `${JSON.stringify(body)}: ${response.body}`);
        assert.ok(JSON.stringify(response.json().errors).includes(path), `${path} in ${response.body}`);
      }
      assert.equal((await get(created.id)).title, 'x');
    });

    test('PATCH external_id conflict is 409 as on create', async () => {
      await call('POST', '', { title: 'a', external_id: 'taken-1' });
      const other = (await call('POST', '', { title: 'b', external_id: 'mine-1' })).json();
      const response = await call('PATCH', `/${other.id}`, { external_id: 'taken-1', title: 'b2' });
      assert.equal(response.statusCode, 409);
      assert.equal(response.json().code, 'external_id_conflict');
      const after = await get(other.id);
      assert.deepEqual([after.external_id, after.title], ['mine-1', 'b'], 'nothing of the refused patch was kept');
    });

    test('PATCH a recipient: name, email, role, method, sequence; search follows', async () => {
      const created = (
        await call('POST', '', {
          title: 'r',
          recipients: [
            { name: 'Asha', email: 'asha@example.com' },
            { name: 'Ravi', email: 'ravi@example.com' },
          ],
        })
      ).json();
      const [asha] = created.recipients;
      const response = await call('PATCH', `/${created.id}/recipients/${asha.recipient_id}`, {
        name: 'Asha Rao',
        email: 'Asha.Rao@Example.org',
        sequence: 5,
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), { ...asha, name: 'Asha Rao', email: 'asha.rao@example.org', sequence: 5 });
      assert.deepEqual(await search('asha.rao@example.org'), [created.id]);
      assert.deepEqual(await search('asha@example.com'), []);
      const approver = (
        await call('PATCH', `/${created.id}/recipients/${asha.recipient_id}`, { role: 'approver' })
      ).json();
      assert.deepEqual(
        [approver.role, approver.signature_method],
        ['approver', 'electronic'],
        'an approver may keep electronic',
      );
      const cc = (
        await call('PATCH', `/${created.id}/recipients/${asha.recipient_id}`, {
          role: 'cc',
          signature_method: 'review',
        })
      ).json();
      assert.deepEqual([cc.role, cc.signature_method], ['cc', 'review']);
      const signer = (await call('PATCH', `/${created.id}/recipients/${asha.recipient_id}`, { role: 'signer' })).json();
      assert.deepEqual(
        [signer.role, signer.signature_method],
        ['signer', 'electronic'],
        'review is not for signers: back to the default',
      );
      const bad = await call('PATCH', `/${created.id}/recipients/${asha.recipient_id}`, {
        role: 'reviewer',
        signature_method: 'dsc',
      });
      assert.equal(bad.statusCode, 422);
    });

    test('recipient changes keep the DSC rules and the placed fields valid', async () => {
      const draft = await makeDraft(t.server, t.account.key, {
        recipients: [
          { name: 'A', email: 'a@example.com', signature_method: 'dsc' },
          { name: 'B', email: 'b@example.com' },
        ],
      });
      const [a, b] = draft.recipientIds;
      const second = await call('PATCH', `/${draft.id}/recipients/${b}`, { signature_method: 'dsc' });
      assert.equal(second.statusCode, 422);
      assert.equal(second.json().code, 'dsc_single_signer');
      const cc = await call('PATCH', `/${draft.id}/recipients/${b}`, { role: 'cc' });
      assert.equal(cc.statusCode, 422, 'B has a Signature field: a cc has none');
      assert.equal(cc.json().code, 'invalid_field_layout');
      assert.match(cc.json().detail, /cc recipients receive a copy/);
      const view = await get(draft.id);
      assert.equal(view.recipients[1].role, 'signer', 'the refused change left nothing behind');
      const electronic = await call('PATCH', `/${draft.id}/recipients/${a}`, { signature_method: 'electronic' });
      assert.equal(electronic.statusCode, 200, 'a signer with one Signature field may change method');
      // A second PDF makes USB DSC impossible (one PDF per DSC envelope).
      assert.equal(
        (
          await t.server.request('POST', `${API}/envelopes/${draft.id}/documents`, {
            key: t.account.key,
            file: { bytes: makePdf({ pages: 1 }) },
          })
        ).statusCode,
        201,
      );
      const dsc = await call('PATCH', `/${draft.id}/recipients/${a}`, { signature_method: 'dsc' });
      assert.equal(dsc.statusCode, 422);
      assert.equal(dsc.json().code, 'dsc_single_document');
    });

    test('DELETE a recipient removes their fields; DELETE a document detaches it with its fields', async () => {
      const draft = await makeDraft(t.server, t.account.key, {
        recipients: [
          { name: 'Keep', email: 'keep@example.com' },
          { name: 'Gone', email: 'gone@example.com' },
        ],
      });
      const [keep, gone] = draft.recipientIds;
      assert.equal((await get(draft.id)).documents[0].fields.length, 2);
      const removed = await call('DELETE', `/${draft.id}/recipients/${gone}`);
      assert.equal(removed.statusCode, 200, removed.body);
      assert.deepEqual(
        removed.json().recipients.map((r: { recipient_id: string }) => r.recipient_id),
        [keep],
      );
      assert.deepEqual(
        removed.json().documents[0].fields.map((f: { recipient_id: string }) => f.recipient_id),
        [keep],
      );
      assert.deepEqual(await search('gone'), []);
      assert.equal((await call('DELETE', `/${draft.id}/recipients/${gone}`)).statusCode, 404);

      const detached = await call('DELETE', `/${draft.id}/documents/${draft.documentId}`);
      assert.equal(detached.statusCode, 200, detached.body);
      assert.deepEqual(detached.json().documents, []);
      const fields = await t.server.ctx.db
        .selectFrom('fields')
        .select('id')
        .where('envelope_id', '=', draft.id)
        .execute();
      assert.equal(fields.length, 0);
      const workspace = await t.server.request('GET', `${API}/documents/${draft.documentId}/content`, {
        key: t.account.key,
      });
      assert.equal(workspace.statusCode, 200, 'the workspace document and its bytes stay');
      assert.equal((await call('DELETE', `/${draft.id}/documents/${draft.documentId}`)).statusCode, 404);
      const again = await t.server.request('POST', `${API}/envelopes/${draft.id}/documents`, {
        key: t.account.key,
        json: { document_id: draft.documentId },
      });
      assert.equal(again.statusCode, 201, 'it can be attached again');
    });

    test('every edit is refused once the envelope is sent, with the error of the fields endpoint', async () => {
      const draft = await makeDraft(t.server, t.account.key, {
        recipients: [
          { name: 'A', email: 'a@example.com' },
          { name: 'B', email: 'b@example.com' },
        ],
      });
      await sendDraft(t.server, t.account.key, draft);
      const fields = await call('PUT', `/${draft.id}/documents/${draft.documentId}/fields`, { fields: [] });
      const edits = [
        await call('PATCH', `/${draft.id}`, { title: 'late' }),
        await call('PATCH', `/${draft.id}/recipients/${draft.recipientIds[0]}`, { name: 'late' }),
        await call('DELETE', `/${draft.id}/recipients/${draft.recipientIds[1]}`),
        await call('DELETE', `/${draft.id}/documents/${draft.documentId}`),
      ];
      for (const response of [fields, ...edits]) {
        assert.equal(response.statusCode, 409, response.body);
        assert.equal(response.json().code, 'envelope_not_draft');
        assert.equal(response.json().envelope_status, 'sent');
      }
      const view = await get(draft.id);
      assert.equal(view.title, 'Agreement');
      assert.equal(view.recipients.length, 2);
      assert.equal(view.documents[0].fields.length, 2);
    });

    test("another account's envelope, recipient or document is 404", async () => {
      const draft = await makeDraft(t.server, t.account.key, { recipients: [{ name: 'A', email: 'a@example.com' }] });
      const other = await t.server.newAccount();
      const responses = [
        await call('PATCH', `/${draft.id}`, { title: 'theirs' }, {}, other.key),
        await call('PATCH', `/${draft.id}/recipients/${draft.recipientIds[0]}`, { name: 'theirs' }, {}, other.key),
        await call('DELETE', `/${draft.id}/recipients/${draft.recipientIds[0]}`, undefined, {}, other.key),
        await call('DELETE', `/${draft.id}/documents/${draft.documentId}`, undefined, {}, other.key),
      ];
      for (const response of responses) {
        assert.equal(response.statusCode, 404, response.body);
        assert.equal(response.json().code, 'envelope_not_found');
      }
      const mine = (
        await call('POST', '', { title: 'mine', recipients: [{ name: 'M', email: 'm@example.com' }] })
      ).json();
      const foreignRecipient = await call('PATCH', `/${mine.id}/recipients/${draft.recipientIds[0]}`, { name: 'x' });
      assert.equal(foreignRecipient.statusCode, 404);
      assert.equal(foreignRecipient.json().code, 'recipient_not_found');
      assert.equal((await get(draft.id)).title, 'Agreement');
    });
  });
}
