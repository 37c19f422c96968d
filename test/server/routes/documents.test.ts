import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { DATABASES } from '../../support/databases.js';
import { encrypt, hasTool, hostile, makePdf } from '../../support/pdf-fixtures.js';
import { API, useTestServer } from '../../support/server.js';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

for (const kind of DATABASES) {
  describe(`documents on ${kind}`, () => {
    const t = useTestServer(kind, { MOHAR_MAX_PDF_BYTES: '12MiB' });

    const upload = (bytes: Uint8Array, filename = 'contract.pdf') =>
      t.server.request('POST', `${API}/documents`, { key: t.account.key, file: { bytes, filename } });

    test('upload returns id, name, pages, size and SHA-256; the stored bytes come back identical', async () => {
      const pdf = makePdf({ pages: [{ text: 'one' }, { mediaBox: [0, 0, 842, 595] }, { rotate: 90 }] });
      const response = await upload(pdf, '../../evil\u0001/Contract 2026.pdf');
      assert.equal(response.statusCode, 201);
      const document = response.json();
      assert.equal(document.filename, 'Contract 2026.pdf');
      assert.equal(document.page_count, 3);
      assert.equal(document.size, pdf.length);
      assert.equal(document.sha256, sha256(pdf));
      assert.deepEqual(
        document.pages.map((p: { width: number; height: number }) => [p.width, p.height]),
        [
          [612, 792],
          [842, 595],
          [792, 612],
        ],
      );
      const fetched = await t.server.request('GET', `${API}/documents/${document.document_id}`, { key: t.account.key });
      assert.deepEqual(fetched.json(), document);
      const content = await t.server.request('GET', `${API}/documents/${document.document_id}/content`, {
        key: t.account.key,
      });
      assert.equal(content.headers['content-type'], 'application/pdf');
      assert.equal(content.headers.etag, `"${sha256(pdf)}"`);
      assert.ok(content.rawPayload.equals(pdf), 'bytes returned are the bytes stored');
    });

    test('lists the signature fields of the PDF', async () => {
      const pdf = makePdf({
        pages: 2,
        signatureFields: [
          { name: 'Sig1', page: 2, rect: [100, 100, 300, 160] },
          { name: 'Done', signed: true },
        ],
      });
      const document = (await upload(pdf)).json();
      const height = document.pages[1].height;
      assert.deepEqual(
        document.signature_fields.map((f: { rect: unknown }) => ({ ...f, rect: undefined })),
        [
          { name: 'Sig1', signed: false, page_number: 2, rect: undefined },
          { name: 'Done', signed: true, page_number: 1, rect: undefined },
        ],
      );
      assert.deepEqual(
        document.signature_fields[0].rect,
        { x: 100, y: height - 160, width: 200, height: 60 },
        'the widget in field coordinates (top-left origin)',
      );
    });

    const refusals: [string, () => Buffer, number, string][] = [
      ['not a PDF', () => Buffer.from('hello, this is a text file\n'.repeat(20)), 422, 'invalid_pdf'],
      ['an empty file', () => Buffer.alloc(0), 422, 'invalid_pdf'],
      ['a truncated PDF', () => makePdf({ pages: 3 }).subarray(0, 120), 422, 'invalid_pdf'],
      ['100,000-deep nesting', () => hostile.deepNesting(100_000), 422, 'pdf_too_complex'],
      ['a stream that inflates to gigabytes', () => hostile.inflateBomb(2), 422, 'pdf_too_complex'],
      ['100,000 pages', () => hostile.manyPages(100_000), 422, 'pdf_too_complex'],
      ['a page tree that lies about its size', () => hostile.lyingCount(50_000), 422, 'pdf_too_complex'],
      [
        'a file over MOHAR_MAX_PDF_BYTES',
        () => Buffer.concat([makePdf(), Buffer.alloc(13 * 1024 * 1024, 0x20)]),
        413,
        'file_too_large',
      ],
    ];
    for (const [what, make, status, code] of refusals) {
      test(`${what} is ${status} ${code}`, async () => {
        const response = await upload(make());
        assert.equal(response.statusCode, status, response.body);
        assert.equal(response.json().code, code);
        assert.match(response.headers['content-type'] as string, /problem\+json/);
      });
    }

    test(
      'a password-protected PDF is pdf_encrypted with a hint',
      { skip: !hasTool('qpdf') && 'qpdf missing' },
      async () => {
        const response = await upload(encrypt(makePdf()));
        assert.equal(response.statusCode, 422);
        assert.equal(response.json().code, 'pdf_encrypted');
        assert.match(response.json().detail, /qpdf --decrypt/);
      },
    );

    test('the server keeps serving while a hostile PDF is being read', async () => {
      const bomb = upload(hostile.inflateBomb(3));
      let bombDone = false;
      void bomb.then(() => (bombDone = true));
      const served = await t.server.request('GET', `${API}/documents/00000000-0000-4000-8000-000000000000`, {
        key: t.account.key,
      });
      assert.equal(served.statusCode, 404);
      assert.equal(bombDone, false, 'the other request was answered before the bomb finished');
      assert.equal((await bomb).json().code, 'pdf_too_complex');
    });

    test('uploads need a multipart part named file', async () => {
      const wrongPart = await t.server.request('POST', `${API}/documents`, {
        key: t.account.key,
        file: { bytes: makePdf(), field: 'document' },
      });
      assert.equal(wrongPart.statusCode, 422);
      assert.equal(wrongPart.json().code, 'missing_file');
      const json = await t.server.request('POST', `${API}/documents`, { key: t.account.key, json: { file: 'x' } });
      assert.equal(json.statusCode, 415);
    });
  });

  describe(`attaching documents on ${kind}`, () => {
    const t = useTestServer(kind);

    const envelope = async (recipients: unknown[] = []) =>
      (
        await t.server.request('POST', `${API}/envelopes`, {
          key: t.account.key,
          json: { title: 'attach', recipients },
        })
      ).json();

    test('upload into a draft, or attach a workspace document by id', async () => {
      const draft = await envelope();
      const uploaded = await t.server.request('POST', `${API}/envelopes/${draft.id}/documents`, {
        key: t.account.key,
        file: { bytes: makePdf({ pages: 2 }) },
      });
      assert.equal(uploaded.statusCode, 201);
      const workspace = (
        await t.server.request('POST', `${API}/documents`, {
          key: t.account.key,
          file: { bytes: makePdf({ pages: 1 }) },
        })
      ).json();
      const attached = await t.server.request('POST', `${API}/envelopes/${draft.id}/documents`, {
        key: t.account.key,
        json: { document_id: workspace.document_id },
      });
      assert.equal(attached.statusCode, 201);
      assert.equal(attached.json().document_id, workspace.document_id);
      const view = (await t.server.request('GET', `${API}/envelopes/${draft.id}`, { key: t.account.key })).json();
      assert.deepEqual(
        view.documents.map((d: { document_id: string; page_count: number }) => d.page_count),
        [2, 1],
      );
      assert.deepEqual(view.documents[1].fields, []);
      const twice = await t.server.request('POST', `${API}/envelopes/${draft.id}/documents`, {
        key: t.account.key,
        json: { document_id: workspace.document_id },
      });
      assert.equal(twice.statusCode, 409);
      assert.equal(twice.json().code, 'document_already_attached');
    });

    test('a DSC envelope holds exactly one PDF', async () => {
      const draft = await envelope([{ name: 'Token holder', email: 't@example.com', signature_method: 'dsc' }]);
      assert.equal(
        (
          await t.server.request('POST', `${API}/envelopes/${draft.id}/documents`, {
            key: t.account.key,
            file: { bytes: makePdf() },
          })
        ).statusCode,
        201,
      );
      const second = await t.server.request('POST', `${API}/envelopes/${draft.id}/documents`, {
        key: t.account.key,
        file: { bytes: makePdf({ pages: 2 }) },
      });
      assert.equal(second.statusCode, 422);
      assert.equal(second.json().code, 'dsc_single_document');
      const documents = await t.server.ctx.db
        .selectFrom('documents')
        .select('id')
        .where('account_id', '=', t.account.accountId)
        .execute();
      const refusedUploadsKept =
        documents.length -
        (await t.server.ctx.db.selectFrom('envelope_documents').select('document_id').execute()).length;
      assert.equal(refusedUploadsKept, 0, 'a refused upload leaves no workspace document behind');
      const withTwoDocs = await envelope();
      for (const pages of [1, 2]) {
        await t.server.request('POST', `${API}/envelopes/${withTwoDocs.id}/documents`, {
          key: t.account.key,
          file: { bytes: makePdf({ pages }) },
        });
      }
      const dscSigner = await t.server.request('POST', `${API}/envelopes/${withTwoDocs.id}/recipients`, {
        key: t.account.key,
        json: { name: 'T', email: 't@example.com', signature_method: 'dsc' },
      });
      assert.equal(dscSigner.statusCode, 422);
      assert.equal(dscSigner.json().code, 'dsc_single_document');
    });

    test('a bad JSON document_id is a validation error, an unknown one 404', async () => {
      const draft = await envelope();
      assert.equal(
        (
          await t.server.request('POST', `${API}/envelopes/${draft.id}/documents`, {
            key: t.account.key,
            json: { document_id: 'nope' },
          })
        ).statusCode,
        422,
      );
      const unknown = await t.server.request('POST', `${API}/envelopes/${draft.id}/documents`, {
        key: t.account.key,
        json: { document_id: '00000000-0000-4000-8000-000000000000' },
      });
      assert.equal(unknown.statusCode, 404);
      assert.equal(unknown.json().code, 'document_not_found');
    });

    test('a sent envelope takes no documents, recipients or fields (409 envelope_not_draft)', async () => {
      const draft = await envelope([{ name: 'A', email: 'a@example.com' }]);
      const document = (
        await t.server.request('POST', `${API}/envelopes/${draft.id}/documents`, {
          key: t.account.key,
          file: { bytes: makePdf() },
        })
      ).json();
      // The send operation belongs to the workflow; here the state is set directly.
      await t.server.ctx.db.updateTable('envelopes').set({ status: 'sent' }).where('id', '=', draft.id).execute();
      const calls = [
        t.server.request('POST', `${API}/envelopes/${draft.id}/documents`, {
          key: t.account.key,
          file: { bytes: makePdf({ pages: 2 }) },
        }),
        t.server.request('POST', `${API}/envelopes/${draft.id}/recipients`, {
          key: t.account.key,
          json: { name: 'B', email: 'b@example.com' },
        }),
        t.server.request('PUT', `${API}/envelopes/${draft.id}/documents/${document.document_id}/fields`, {
          key: t.account.key,
          json: { fields: [] },
        }),
      ];
      for (const response of await Promise.all(calls)) {
        assert.equal(response.statusCode, 409);
        assert.equal(response.json().code, 'envelope_not_draft');
        assert.equal(response.json().envelope_status, 'sent');
      }
    });
  });
}
