/**
 * Reviewer and approver input (issue 16, point 2). An approver's Text/Date/Checkbox values are written into
 * the document in ONE incremental revision sealed like an electronic act (required ones required, values
 * validated by the same rules); reviewers and cc hold no fields (422 invalid_field_layout, role_mismatch);
 * an act never drops values silently: values for fields that are not the recipient's, or that Mohar fills
 * itself, are refused with a clear error.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PdfReader } from '../../../pdf/document.js';
import { verifyPdf } from '../../../pdf/verify/index.js';
import { DATABASES } from '../../support/databases.js';
import { makeDraft, sendDraft } from '../../support/envelopes.js';
import { formValues } from '../../support/form-reading.js';
import { makePdf, qpdfCheck } from '../../support/pdf-fixtures.js';
import { API, useTestServer } from '../../support/server.js';
import { pdfsigVerdicts } from '../../support/validators.js';
import { createSaleTemplate, FIELDS, jsonPart, multipart } from '../../support/templates.js';

const box = (y: number) => ({ page_number: 1, x: 300, y, width: 200, height: 20 });

for (const kind of DATABASES) {
  describe(`approver and reviewer input on ${kind}`, () => {
    const t = useTestServer(kind);
    const link = async (envelopeId: string, recipientId: string) => {
      const created = await t.server.request('POST', `${API}/envelopes/${envelopeId}/signing-sessions`, {
        key: t.account.key,
        json: { recipient_id: recipientId, mode: 'redirect' },
      });
      assert.equal(created.statusCode, 201, created.body);
      return created.json().signing_url.split('/sign/')[1] as string;
    };

    test('fields for a reviewer or a cc are refused at layout time with role_mismatch (fields endpoint, template)', async () => {
      const created = await t.server.request('POST', `${API}/envelopes`, {
        key: t.account.key,
        json: {
          title: 'Layout',
          recipients: [
            { name: 'Asha', email: 'asha@example.com' },
            { name: 'Rita', email: 'rita@example.com', role: 'reviewer' },
            { name: 'Kiran', email: 'kiran@example.com', role: 'cc' },
            { name: 'Ravi', email: 'ravi@example.com', role: 'approver' },
          ],
        },
      });
      assert.equal(created.statusCode, 201, created.body);
      const [signer, reviewer, cc, approver] = created
        .json()
        .recipients.map((r: { recipient_id: string }) => r.recipient_id) as string[];
      const document = await t.server.request('POST', `${API}/envelopes/${created.json().id}/documents`, {
        key: t.account.key,
        file: { bytes: makePdf({ pages: 1 }) },
      });
      assert.equal(document.statusCode, 201, document.body);
      const put = (fields: unknown[]) =>
        t.server.request(
          'PUT',
          `${API}/envelopes/${created.json().id}/documents/${document.json().document_id}/fields`,
          { key: t.account.key, json: { fields } },
        );
      const signature = { recipient_id: signer, field_type: 1, ...box(40) };
      for (const [who, recipient, type] of [
        ['reviewer', reviewer, 8],
        ['reviewer', reviewer, 9],
        ['reviewer', reviewer, 11],
        ['cc', cc, 8],
        ['cc', cc, 4],
      ] as const) {
        const refused = await put([signature, { recipient_id: recipient, field_type: type, ...box(100) }]);
        assert.equal(refused.statusCode, 422, `${who} type ${type}: ${refused.body}`);
        assert.equal(refused.json().code, 'invalid_field_layout');
        assert.deepEqual(
          refused.json().errors.map((e: { code: string; path: string }) => [e.path, e.code]),
          [['/fields/1', 'role_mismatch']],
          `${who} type ${type}`,
        );
        assert.match(refused.json().errors[0].message, new RegExp(who));
      }
      const accepted = await put([
        signature,
        { recipient_id: approver, field_type: 8, label: 'PO number', ...box(100) },
      ]);
      assert.equal(accepted.statusCode, 200, accepted.body);

      // Templates go through the same table: a reviewer role, or the cc witness, with a field is refused the same way.
      const sale = await createSaleTemplate(t.server, t.account.key);
      const documentId = sale.body.documents[0]!.document_id;
      const created2 = await multipart(t.server, 'POST', `${API}/templates`, t.account.key, [
        jsonPart('template', {
          name: 'Reviewed',
          roles: [{ role_key: 'signer' }, { role_key: 'legal', role: 'reviewer' }],
          documents: [
            {
              file: 'doc',
              fields: [
                { role_key: 'signer', field_type: 1, ...box(40) },
                { role_key: 'legal', field_type: 8, ...box(100) },
              ],
            },
          ],
        }),
        { field: 'doc', filename: 'doc.pdf', bytes: makePdf({ pages: 1 }) },
      ]);
      assert.equal(created2.statusCode, 422, created2.body);
      assert.deepEqual(
        created2.json().errors.map((e: { path: string; code: string }) => [e.path, e.code]),
        [['/documents/0/fields/1', 'role_mismatch']],
      );
      const patched = await t.server.request('PATCH', `${API}/templates/${sale.id}`, {
        key: t.account.key,
        json: {
          documents: [
            { document_id: documentId, fields: [...FIELDS, { role_key: 'witness', field_type: 8, ...box(100) }] },
          ],
        },
      });
      assert.equal(patched.statusCode, 422, patched.body);
      assert.deepEqual(
        patched.json().errors.map((e: { path: string; code: string }) => [e.path, e.code]),
        [['/documents/0/fields/3', 'role_mismatch']],
      );
    });

    test("an approver's values land in the PDF: one sealed revision, required fields required, values validated", async () => {
      const draft = await makeDraft(t.server, t.account.key, {
        recipients: [
          { name: 'Asha Rao', email: 'asha@example.com' },
          { name: 'Ravi Kumar', email: 'ravi@example.com', role: 'approver' },
        ],
        extraFields: (ids) => [
          { recipient_id: ids[1], field_type: 8, label: 'PO number', required: true, ...box(300) },
          { recipient_id: ids[1], field_type: 11, label: 'Approved on', required: false, ...box(340) },
          { recipient_id: ids[1], field_type: 9, label: 'Budget checked', ...box(380), width: 20 },
          { recipient_id: ids[1], field_type: 4, ...box(420) },
        ],
      });
      await sendDraft(t.server, t.account.key, draft);
      const [signerId, approverId] = draft.recipientIds as [string, string];
      const signed = await t.server.request('POST', `${API}/signing/${await link(draft.id, signerId)}`, {
        json: { action: 'sign', consent: true, signature: { kind: 'typed', text: 'Asha Rao' } },
      });
      assert.equal(signed.statusCode, 200, signed.body);

      const token = await link(draft.id, approverId);
      const view = (await t.server.request('GET', `${API}/signing/${token}`)).json();
      assert.equal(view.action, 'approve');
      const byLabel = (label: string) =>
        view.fields.find((f: { label: string | null }) => f.label === label).field_id as string;
      const [po, date, checked] = [byLabel('PO number'), byLabel('Approved on'), byLabel('Budget checked')];
      const fullName = view.fields.find((f: { field_type: number }) => f.field_type === 4).field_id as string;
      const approve = (extra: Record<string, unknown>) =>
        t.server.request('POST', `${API}/signing/${token}`, { json: { action: 'approve', consent: true, ...extra } });

      const missing = await approve({});
      assert.equal(missing.statusCode, 422, missing.body);
      assert.equal(missing.json().code, 'invalid_field_values');
      assert.deepEqual(
        missing.json().errors.map((e: { path: string; code: string }) => [e.path, e.code]),
        [[`/fields/${po}`, 'value_required']],
      );
      assert.match(missing.json().detail, /PO number/);

      const wrong = await approve({ fields: { [po]: 'PO-1', [date]: '31/12/2026', [checked]: 'maybe' } });
      assert.equal(wrong.statusCode, 422, wrong.body);
      assert.deepEqual(
        wrong
          .json()
          .errors.map((e: { path: string; code: string }) => [e.path, e.code])
          .sort(),
        [
          [`/fields/${checked}`, 'value_invalid'],
          [`/fields/${date}`, 'value_invalid'],
        ].sort(),
      );

      // The shape of a date is not enough: a day the calendar lacks is refused, as in a pre-assigned value.
      const notADay = await approve({ fields: { [po]: 'PO-1', [date]: '2026-02-30' } });
      assert.equal(notADay.statusCode, 422, notADay.body);
      assert.deepEqual(
        notADay.json().errors.map((e: { path: string; code: string }) => [e.path, e.code]),
        [[`/fields/${date}`, 'value_invalid']],
      );

      const notTheirs = await approve({ fields: { [po]: 'PO-1', '00000000-0000-4000-8000-000000000000': 'x' } });
      assert.equal(notTheirs.statusCode, 422, notTheirs.body);
      assert.equal(notTheirs.json().errors[0].code, 'unknown_field');

      const autoFilled = await approve({ fields: { [po]: 'PO-1', [fullName]: 'Somebody Else' } });
      assert.equal(autoFilled.statusCode, 422, autoFilled.body);
      assert.equal(autoFilled.json().code, 'field_read_only');
      assert.equal(autoFilled.json().errors[0].path, `/fields/${fullName}`);

      const withSignature = await approve({ fields: { [po]: 'PO-1' }, signature: { kind: 'typed', text: 'Ravi' } });
      assert.equal(withSignature.statusCode, 422, withSignature.body);
      assert.equal(withSignature.json().code, 'validation_failed');

      const before = await t.server.ctx.db
        .selectFrom('document_revisions')
        .select('act')
        .where('envelope_id', '=', draft.id)
        .execute();
      assert.ok(!before.some((r) => r.act === 'approved'), 'nothing was written by the refused acts');

      const approved = await approve({ fields: { [po]: 'PO-4711', [date]: '2026-11-25', [checked]: true } });
      assert.equal(approved.statusCode, 200, approved.body);
      assert.equal(approved.json().envelope_status, 'completed');

      const revisions = await t.server.ctx.db
        .selectFrom('document_revisions')
        .select(['act', 'recipient_id', 'sha256', 'size'])
        .where('envelope_id', '=', draft.id)
        .orderBy('seq')
        .execute();
      assert.deepEqual(revisions.map((r) => r.act).slice(0, 5), [
        'uploaded',
        'prepared',
        'certified',
        'signed',
        'approved',
      ]);
      assert.equal(revisions[4]!.recipient_id, approverId);
      const rows = await t.server.ctx.db
        .selectFrom('fields')
        .select(['id', 'value'])
        .where('recipient_id', '=', approverId)
        .execute();
      const stored = Object.fromEntries(rows.map((r) => [r.id, r.value]));
      assert.deepEqual(
        [stored[po], stored[date], stored[checked], stored[fullName]],
        ['PO-4711', '2026-11-25', 'true', 'Ravi Kumar'],
      );

      const download = await t.server.request(
        'GET',
        `${API}/envelopes/${draft.id}/documents/${draft.documentId}/download`,
        { key: t.account.key },
      );
      assert.equal(download.statusCode, 200);
      const final = download.rawPayload;
      for (const r of revisions) {
        assert.ok(
          final.subarray(0, Number(r.size)).equals(await t.server.ctx.blobs.get(r.sha256)),
          `revision ${r.act} is a prefix`,
        );
      }
      assert.ok(qpdfCheck(final).ok, qpdfCheck(final).output);
      const judged = pdfsigVerdicts(final);
      assert.ok(judged.valid.length >= 3 && judged.valid.every(Boolean), judged.output);
      const report = verifyPdf(final);
      assert.equal(report.valid, true);
      const approval = report.signatures.find((s) => s.name === 'Ravi Kumar');
      assert.ok(approval, 'the approval is sealed by a signature of its own');
      assert.match(approval.reason ?? '', /Approved by Ravi Kumar/);
      // Issue 26: the approval's invisible signature locks the fields it fills (it has no field with a /Lock).
      const lock = approval.fieldLock;
      assert.ok(
        lock?.action === 'Include' && [po, date, checked].every((id) => lock.fields.some((f) => f.endsWith(`.${id}`))),
        JSON.stringify(lock),
      );
      const approvedBytes = await t.server.ctx.blobs.get(revisions[4]!.sha256);
      assert.equal(
        approval.revision,
        PdfReader.open(approvedBytes).revisions?.length ?? approval.revision,
        'values and seal in one revision',
      );
      const values = Object.entries(formValues(final));
      const valueOf = (id: string) => values.find(([name]) => name.includes(id))?.[1];
      assert.equal(valueOf(po), 'PO-4711');
      assert.equal(valueOf(date), '2026-11-25');
      assert.notEqual(valueOf(checked), 'Off');
      assert.equal(valueOf(fullName), 'Ravi Kumar');
    });

    test('a reviewer act carrying values is refused; a plain review is recorded without a revision', async () => {
      const draft = await makeDraft(t.server, t.account.key, {
        recipients: [
          { name: 'Rita', email: 'rita@example.com', role: 'reviewer' },
          { name: 'Asha', email: 'asha@example.com' },
        ],
      });
      await sendDraft(t.server, t.account.key, draft);
      const token = await link(draft.id, draft.recipientIds[0]!);
      const view = (await t.server.request('GET', `${API}/signing/${token}`)).json();
      assert.equal(view.action, 'review');
      assert.deepEqual(view.fields, []);
      const refused = await t.server.request('POST', `${API}/signing/${token}`, {
        json: { action: 'review', consent: true, fields: { '00000000-0000-4000-8000-000000000000': 'looks fine' } },
      });
      assert.equal(refused.statusCode, 422, refused.body);
      assert.equal(refused.json().code, 'invalid_field_values');
      assert.equal(refused.json().errors[0].code, 'unknown_field');
      const reviewed = await t.server.request('POST', `${API}/signing/${token}`, {
        json: { action: 'review', consent: true },
      });
      assert.equal(reviewed.statusCode, 200, reviewed.body);
      const revisions = await t.server.ctx.db
        .selectFrom('document_revisions')
        .select('act')
        .where('envelope_id', '=', draft.id)
        .execute();
      assert.deepEqual(revisions.map((r) => r.act).sort(), ['certified', 'prepared', 'uploaded']);
    });

    test('a signer sending a value for a field Mohar fills (Full name) is refused, not ignored', async () => {
      const draft = await makeDraft(t.server, t.account.key, {
        recipients: [{ name: 'Asha Rao', email: 'asha@example.com' }],
        extraFields: (ids) => [{ recipient_id: ids[0], field_type: 4, ...box(300) }],
      });
      await sendDraft(t.server, t.account.key, draft);
      const token = await link(draft.id, draft.recipientIds[0]!);
      const view = (await t.server.request('GET', `${API}/signing/${token}`)).json();
      const fullName = view.fields.find((f: { field_type: number }) => f.field_type === 4).field_id as string;
      const sign = (fields: Record<string, string>) =>
        t.server.request('POST', `${API}/signing/${token}`, {
          json: { action: 'sign', consent: true, fields, signature: { kind: 'typed', text: 'Asha Rao' } },
        });
      const refused = await sign({ [fullName]: 'Mallory' });
      assert.equal(refused.statusCode, 422, refused.body);
      assert.equal(refused.json().code, 'field_read_only');
      const same = await sign({ [fullName]: 'Asha Rao' });
      assert.equal(same.statusCode, 200, same.body);
    });
  });
}
