/**
 * Pre-assigned values (issue 11, point 7): a value the sender set is read-only for the signer unless the
 * field is `editable: true`. The signer API refuses a change with 422 field_read_only naming the field
 * (electronic act and the USB DSC prepared document alike), and nothing is signed or stored.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DATABASES } from '../../support/databases.js';
import { makeDraft, sendDraft } from '../../support/envelopes.js';
import { API, useTestServer } from '../../support/server.js';

for (const kind of DATABASES) {
  describe(`pre-assigned field values on ${kind}`, () => {
    const t = useTestServer(kind);

    const draftWith = (signatureMethod: 'electronic' | 'dsc') =>
      makeDraft(t.server, t.account.key, {
        recipients: [{ name: 'Asha Rao', email: 'asha@example.com', signature_method: signatureMethod }],
        extraFields: (ids) => [
          {
            recipient_id: ids[0],
            field_type: 8,
            page_number: 1,
            x: 300,
            y: 40,
            width: 200,
            height: 20,
            label: 'Company',
            value: 'ACME Ltd',
          },
          {
            recipient_id: ids[0],
            field_type: 8,
            page_number: 1,
            x: 300,
            y: 80,
            width: 200,
            height: 20,
            label: 'Address',
            value: 'fill me',
            editable: true,
          },
          {
            recipient_id: ids[0],
            field_type: 9,
            page_number: 1,
            x: 300,
            y: 120,
            width: 20,
            height: 20,
            label: 'Agreed',
            value: 'true',
          },
        ],
      });

    const link = async (envelopeId: string, recipientId: string) =>
      (
        await t.server.request('POST', `${API}/envelopes/${envelopeId}/signing-sessions`, {
          key: t.account.key,
          json: { recipient_id: recipientId, mode: 'redirect' },
        })
      )
        .json()
        .signing_url.split('/sign/')[1] as string;

    test("editable is stored and shown; a changed read-only value is refused with field_read_only; the act keeps the sender's value", async () => {
      const draft = await draftWith('electronic');
      const envelope = (await t.server.request('GET', `${API}/envelopes/${draft.id}`, { key: t.account.key })).json();
      const byLabel = new Map<string, { field_id: string; editable: boolean; value: string | null }>(
        envelope.documents[0].fields
          .filter((f: { label: string | null }) => f.label)
          .map((f: { label: string }) => [f.label, f]),
      );
      assert.equal(byLabel.get('Company')!.editable, false, 'default: read-only');
      assert.equal(byLabel.get('Address')!.editable, true);
      assert.equal(byLabel.get('Agreed')!.editable, false);
      assert.ok(envelope.documents[0].fields.every((f: { editable: unknown }) => typeof f.editable === 'boolean'));
      await sendDraft(t.server, t.account.key, draft);

      const token = await link(draft.id, draft.recipientIds[0]!);
      const view = (await t.server.request('GET', `${API}/signing/${token}`)).json();
      const company = view.fields.find((f: { label: string }) => f.label === 'Company');
      const address = view.fields.find((f: { label: string }) => f.label === 'Address');
      const agreed = view.fields.find((f: { label: string }) => f.label === 'Agreed');
      assert.deepEqual([company.editable, address.editable, agreed.editable], [false, true, false]);

      const sign = (fields: Record<string, string | boolean>) =>
        t.server.request('POST', `${API}/signing/${token}`, {
          json: { action: 'sign', consent: true, fields, signature: { kind: 'typed', text: 'Asha Rao' } },
        });
      for (const [what, fields, named] of [
        ['a changed text value', { [company.field_id]: 'Evil Corp' }, [company.field_id]],
        ['an unticked checkbox', { [agreed.field_id]: false }, [agreed.field_id]],
        [
          'both',
          { [company.field_id]: '', [agreed.field_id]: 'false', [address.field_id]: 'ok' },
          [company.field_id, agreed.field_id],
        ],
      ] as const) {
        const refused = await sign(fields);
        assert.equal(refused.statusCode, 422, `${what}: ${refused.body}`);
        assert.equal(refused.json().code, 'field_read_only', what);
        assert.deepEqual(
          refused.json().errors.map((e: { path: string }) => e.path),
          named.map((id) => `/fields/${id}`),
          what,
        );
        assert.match(refused.json().detail, /Company|Agreed/);
      }
      const untouched = (
        await t.server.request('GET', `${API}/envelopes/${draft.id}/status`, { key: t.account.key })
      ).json();
      assert.notEqual(untouched.recipients[0].status, 'signed', 'nothing was signed');
      const revisions = await t.server.ctx.db
        .selectFrom('document_revisions')
        .select('act')
        .where('envelope_id', '=', draft.id)
        .execute();
      assert.ok(!revisions.some((r) => r.act === 'signed'));

      // The unchanged value may be sent back (a page that posts every field); the editable one may change.
      const signed = await sign({
        [company.field_id]: 'ACME Ltd',
        [agreed.field_id]: true,
        [address.field_id]: '12 MG Road, Pune',
      });
      assert.equal(signed.statusCode, 200, signed.body);
      const rows = await t.server.ctx.db
        .selectFrom('fields')
        .select(['label', 'value'])
        .where('envelope_id', '=', draft.id)
        .execute();
      const values = Object.fromEntries(rows.filter((r) => r.label).map((r) => [r.label, r.value]));
      assert.deepEqual([values.Company, values.Address, values.Agreed], ['ACME Ltd', '12 MG Road, Pune', 'true']);
    });

    test('USB DSC: the prepared document refuses a changed read-only value too', async () => {
      const draft = await draftWith('dsc');
      await sendDraft(t.server, t.account.key, draft);
      const token = await link(draft.id, draft.recipientIds[0]!);
      const view = (await t.server.request('GET', `${API}/signing/${token}`)).json();
      const company = view.fields.find((f: { label: string }) => f.label === 'Company');
      const base = `${API}/signing/${token}/documents/${draft.documentId}/prepared`;
      const refused = await t.server.request('POST', base, { json: { fields: { [company.field_id]: 'Evil Corp' } } });
      assert.equal(refused.statusCode, 422, refused.body);
      assert.equal(refused.json().code, 'field_read_only');
      assert.equal(refused.json().errors[0].path, `/fields/${company.field_id}`);
      const recipient = await t.server.ctx.db
        .selectFrom('recipients')
        .select('prepared_sha256')
        .where('id', '=', draft.recipientIds[0]!)
        .executeTakeFirstOrThrow();
      assert.equal(recipient.prepared_sha256, null, 'no prepared document was made');
      const accepted = await t.server.request('POST', base, { json: { fields: { [company.field_id]: 'ACME Ltd' } } });
      assert.equal(accepted.statusCode, 200, accepted.body);
    });
  });
}
