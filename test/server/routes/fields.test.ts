import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DATABASES } from '../../support/databases.js';
import { makePdf } from '../../support/pdf-fixtures.js';
import { API, useTestServer } from '../../support/server.js';

for (const kind of DATABASES) {
  describe(`fields on ${kind}`, () => {
    const t = useTestServer(kind);

    async function draftWith(pdf: Buffer, recipients: unknown[]) {
      const envelope = (
        await t.server.request('POST', `${API}/envelopes`, {
          key: t.account.key,
          json: { title: 'fields', recipients },
        })
      ).json();
      const document = (
        await t.server.request('POST', `${API}/envelopes/${envelope.id}/documents`, {
          key: t.account.key,
          file: { bytes: pdf },
        })
      ).json();
      const ids = envelope.recipients.map((r: { recipient_id: string }) => r.recipient_id) as string[];
      const put = (fields: unknown[]) =>
        t.server.request('PUT', `${API}/envelopes/${envelope.id}/documents/${document.document_id}/fields`, {
          key: t.account.key,
          json: { fields },
        });
      return { envelope, document, ids, put };
    }

    test('replaces all fields; every type is stored and shown on the envelope', async () => {
      const { envelope, ids, put } = await draftWith(makePdf({ pages: 2 }), [
        { name: 'Asha Rao', email: 'asha@example.com' },
      ]);
      const fields = Array.from({ length: 13 }, (_, i) => ({
        recipient_id: ids[0],
        field_type: i + 1,
        page_number: 1 + (i % 2),
        x1: 20 + i * 10,
        y1: 30,
        x2: 60 + i * 10,
        y2: 50,
        label: `f${i + 1}`,
        ...(i + 1 === 12 || i + 1 === 13 ? { options: ['Yes', 'No'], value: 'No' } : {}),
        ...(i + 1 === 8 ? { value: 'preset' } : {}),
      }));
      const first = await put(fields);
      assert.equal(first.statusCode, 200, first.body);
      assert.equal(first.json().fields.length, 13);
      assert.deepEqual(first.json().fields[0], {
        ...first.json().fields[0],
        x: 20,
        y: 30,
        width: 40,
        height: 20,
        page_number: 1,
      });
      assert.deepEqual(first.json().fields[11].options, ['Yes', 'No']);
      const replaced = await put([
        { recipient_id: ids[0], field_type: 1, page_number: 2, x: 100, y: 600, width: 150, height: 50 },
      ]);
      assert.equal(replaced.statusCode, 200);
      const view = (await t.server.request('GET', `${API}/envelopes/${envelope.id}`, { key: t.account.key })).json();
      assert.equal(view.documents[0].fields.length, 1, 'the call replaces, it does not append');
      assert.equal(view.documents[0].fields[0].field_id, replaced.json().fields[0].field_id);
    });

    test('coordinates are bounded by the page as displayed: /Rotate 90 and a MediaBox not at 0,0', async () => {
      // Page 1: portrait Letter rotated 90 => shown 792 wide, 612 high. Page 2: MediaBox [100 200 400 600] => 300 x
      // 400.
      const pdf = makePdf({
        pages: [
          { rotate: 90 },
          { mediaBox: [100, 200, 400, 600] },
          { mediaBox: [0, 0, 612, 792], cropBox: [50, 50, 350, 450] },
        ],
      });
      const { document, ids, put } = await draftWith(pdf, [{ name: 'A', email: 'a@example.com' }]);
      assert.deepEqual(
        document.pages.map((p: { width: number; height: number; rotate: number }) => [p.width, p.height, p.rotate]),
        [
          [792, 612, 90],
          [300, 400, 0],
          [300, 400, 0],
        ],
      );
      const field = (page: number, x: number, y: number, width: number, height: number) => ({
        recipient_id: ids[0],
        field_type: 8,
        page_number: page,
        x,
        y,
        width,
        height,
      });
      assert.equal(
        (await put([field(1, 700, 550, 92, 62), field(2, 0, 0, 300, 400), field(3, 250, 350, 50, 50)])).statusCode,
        200,
      );
      const bad = await put([
        field(1, 0, 600, 10, 20),
        field(2, 250, 0, 100, 10),
        field(3, 0, 380, 10, 30),
        field(2, 150, 250, 20, 20),
      ]);
      assert.equal(bad.statusCode, 422);
      const problem = bad.json();
      assert.equal(problem.code, 'invalid_field_layout');
      assert.deepEqual(
        problem.errors.map((e: { index: number; code: string }) => [e.index, e.code]),
        [
          [0, 'outside_page'],
          [1, 'outside_page'],
          [2, 'outside_page'],
        ],
      );
    });

    test('a bad layout lists every bad field by index, including schema errors', async () => {
      const { ids, put } = await draftWith(makePdf(), [
        { name: 'A', email: 'a@example.com' },
        { name: 'C', email: 'c@example.com', role: 'cc' },
      ]);
      const response = await put([
        { recipient_id: ids[0], field_type: 8, page_number: 1, x: 1, y: 1, width: 5, height: 5 },
        { recipient_id: ids[1], field_type: 8, page_number: 1, x: 1, y: 1, width: 5, height: 5 },
        { recipient_id: ids[0], field_type: 8, page_number: 9, x: 1, y: 1, width: 5, height: 5 },
      ]);
      assert.equal(response.statusCode, 422);
      assert.deepEqual(
        response.json().errors.map((e: { index: number }) => e.index),
        [1, 2],
      );
      const schema = await put([
        { recipient_id: ids[0], field_type: 'eight', page_number: 1 },
        { recipient_id: ids[0], field_type: 8, x: 'left' },
      ]);
      assert.equal(schema.statusCode, 422);
      assert.equal(schema.json().code, 'invalid_field_layout');
      assert.deepEqual([...new Set(schema.json().errors.map((e: { index: number }) => e.index))], [0, 1]);
    });

    test('USB DSC: one Signature field, or an existing empty PDF signature field by name', async () => {
      const pdf = makePdf({
        pages: 2,
        signatureFields: [
          { name: 'Sig', parent: 'Approval', page: 2, rect: [100, 100, 300, 160] },
          { name: 'Signed', signed: true, page: 1, rect: [10, 10, 50, 50] },
        ],
      });
      const { ids, put } = await draftWith(pdf, [{ name: 'Token', email: 't@example.com', signature_method: 'dsc' }]);
      const none = await put([]);
      assert.equal(none.json().errors[0].code, 'dsc_signature_field_count');
      const named = await put([{ recipient_id: ids[0], field_type: 1, pdf_signature_field: 'Approval.Sig' }]);
      assert.equal(named.statusCode, 200, named.body);
      const field = named.json().fields[0];
      assert.equal(field.page_number, 2);
      assert.equal(field.pdf_signature_field, 'Approval.Sig');
      // Widget [100 100 300 160] on a 792-high page, measured from the top-left.
      assert.deepEqual([field.x, field.y, field.width, field.height], [100, 632, 200, 60]);
      const signed = await put([{ recipient_id: ids[0], field_type: 1, pdf_signature_field: 'Signed' }]);
      assert.equal(signed.json().errors[0].code, 'signature_field_signed');
      assert.match(signed.json().errors[0].message, /Approval\.Sig/);
    });

    test('a document of another envelope is not found', async () => {
      const one = await draftWith(makePdf(), [{ name: 'A', email: 'a@example.com' }]);
      const two = await draftWith(makePdf(), [{ name: 'B', email: 'b@example.com' }]);
      const response = await t.server.request(
        'PUT',
        `${API}/envelopes/${one.envelope.id}/documents/${two.document.document_id}/fields`,
        { key: t.account.key, json: { fields: [] } },
      );
      assert.equal(response.statusCode, 404);
      assert.equal(response.json().code, 'document_not_found');
    });
  });
}
