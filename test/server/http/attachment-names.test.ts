/**
 * Issue 16.7: a document named in a script outside Latin-1 (Hindi: अनुबंध.pdf) downloads from every path
 * that names the file (API, signer, legacy key and link, sandbox, certificate of completion) with an RFC 6266
 * Content-Disposition: an ASCII `filename` and the exact name in `filename*=UTF-8''…`; the completion mail
 * attaches it under its own name (RFC 2231 parameters, as nodemailer writes them).
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
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
import { startSmtp, type SmtpTestServer } from '../../support/smtp.js';
import { makePng } from '../../support/png.js';

const HINDI = 'अनुबंध.pdf';
const PNG = makePng(80, 24, (x, y) =>
  Math.abs(y - 12 - Math.round(6 * Math.sin(x / 7))) < 2 ? [10, 10, 90, 255] : [0, 0, 0, 0],
);
const pdf = makePdf({ pages: 1 });
const tokenOf = (url: string) => url.split('/sign/')[1]!;

/** The file name a browser would save: filename* (RFC 8187) when present, else filename. */
function savedName(response: LightMyRequestResponse): string {
  assert.equal(response.statusCode, 200, response.body);
  const header = String(response.headers['content-disposition']);
  assert.match(header, /^attachment; filename="[\x20-\x7e]+"; filename\*=UTF-8''[A-Za-z0-9!#$&+\-.^_`|~%]+$/, header);
  const fallback = /filename="([^"]*)"/.exec(header)![1]!;
  assert.ok(!/["\\]/.test(fallback) && fallback.endsWith('.pdf'), `ASCII fallback ${fallback}`);
  return decodeURIComponent(/filename\*=UTF-8''(.+)$/.exec(header)![1]!);
}

/** A file host whose URL path names the PDF (the legacy API takes its file name from doc_url). */
async function startFileHost(): Promise<{ base: string; close(): Promise<void> }> {
  const server: Server = createServer(
    (_request, response) =>
      void response.writeHead(200, { 'content-type': 'application/pdf', 'content-length': pdf.length }).end(pdf),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

for (const kind of DATABASES) {
  describe(`non-Latin-1 file names download on ${kind}`, () => {
    let server: TestServer;
    let account: TestAccount;
    let smtp: SmtpTestServer;
    let files: Awaited<ReturnType<typeof startFileHost>>;
    before(async () => {
      smtp = await startSmtp();
      files = await startFileHost();
      server = await startTestServer(kind, { MOHAR_SMTP_URL: smtp.url, MOHAR_FETCH_ALLOW_PRIVATE: '1' });
      account = await server.newAccount();
    });
    after(async () => {
      await server?.close();
      await smtp?.close();
      await files?.close();
    });
    const sign = async (token: string) => {
      const act = await server.request('POST', `${API}/signing/${token}`, {
        json: {
          action: 'sign',
          consent: true,
          signature: { kind: 'typed', text: 'Asha Rao', image_png: PNG.toString('base64') },
        },
      });
      assert.equal(act.statusCode, 200, act.body);
    };

    test('API, signer and certificate downloads; the completion mail attachment', async () => {
      const created = await server.request('POST', `${API}/envelopes`, {
        key: account.key,
        json: { title: 'अनुबंध', recipients: [{ name: 'Asha Rao', email: 'asha@example.com' }] },
      });
      assert.equal(created.statusCode, 201, created.body);
      const envelope = created.json() as { id: string; recipients: { recipient_id: string }[] };
      const upload = await server.request('POST', `${API}/envelopes/${envelope.id}/documents`, {
        key: account.key,
        file: { filename: HINDI, bytes: pdf },
      });
      assert.equal(upload.statusCode, 201, upload.body);
      const documentId = (upload.json() as { document_id: string; filename: string }).document_id;
      assert.equal((upload.json() as { filename: string }).filename, HINDI, 'the upload keeps the name');
      const recipientId = envelope.recipients[0]!.recipient_id;
      const fields = await server.request('PUT', `${API}/envelopes/${envelope.id}/documents/${documentId}/fields`, {
        key: account.key,
        json: {
          fields: [{ recipient_id: recipientId, field_type: 1, page_number: 1, x: 40, y: 40, width: 180, height: 50 }],
        },
      });
      assert.equal(fields.statusCode, 200, fields.body);
      assert.equal(
        (await server.request('POST', `${API}/envelopes/${envelope.id}/send`, { key: account.key })).statusCode,
        200,
      );
      const session = await server.request('POST', `${API}/envelopes/${envelope.id}/signing-sessions`, {
        key: account.key,
        json: { recipient_id: recipientId, mode: 'redirect' },
      });
      const token = tokenOf((session.json() as { signing_url: string }).signing_url);
      await sign(token);
      const before = smtp.messages.length;
      await server.runJobs();
      await server.runJobs();

      assert.equal(
        savedName(
          await server.request('GET', `${API}/envelopes/${envelope.id}/documents/${documentId}/download`, {
            key: account.key,
          }),
        ),
        HINDI,
      );
      assert.equal(
        savedName(await server.request('GET', `${API}/signing/${token}/documents/${documentId}/download`)),
        HINDI,
      );
      assert.equal(
        savedName(
          await server.request('GET', `${API}/envelopes/${envelope.id}/audit-trail/certificate`, { key: account.key }),
        ),
        `certificate-of-completion-${envelope.id}.pdf`,
      );

      await smtp.waitFor(before + 1);
      const mails = smtp.messages.slice(before).filter((m) => m.attachments.length > 0);
      assert.ok(mails.length > 0, 'the completion mail went out with its attachment');
      const names = mails.flatMap((m) => m.attachments.map((a) => a.filename));
      assert.ok(names.includes(HINDI), `attachment names: ${names.join(', ')}`);
      const raw = mails[0]!.raw.toString('latin1');
      assert.ok(!raw.includes(Buffer.from(HINDI).toString('latin1')), 'no raw 8-bit file name in the MIME headers');
    });

    test('legacy downloads: with the key and with signed_doc_url', async () => {
      const created = await server.request('POST', `${LEGACY}/document/recipients/create/`, {
        key: account.key,
        json: {
          companyDetails: { api_key: account.key, is_mail_required: false },
          documentDetails: { doc_url: `${files.base}/${encodeURIComponent(HINDI)}` },
          recipientDetail: [
            {
              name: 'Asha Rao',
              email: 'asha@example.com',
              typeOfSignature: 'E-Signature',
              sequence: 1,
              page_no: 1,
              x_cor: 72,
              y_cor: 600,
            },
          ],
        },
      });
      assert.equal(created.statusCode, 200, created.body);
      const body = created.json() as { document_id: number; signing_info: { signing_url: string }[] };
      await sign(tokenOf(body.signing_info[0]!.signing_url));
      await server.runJobs();
      assert.equal(
        savedName(
          await server.request('GET', `${LEGACY}/document/download/?doc_id=${body.document_id}`, { key: account.key }),
        ),
        HINDI,
      );
      const status = await server.request('GET', `${LEGACY}/document/app/sign/status/${body.document_id}/`, {
        key: account.key,
      });
      const link = new URL((status.json() as { signed_doc_url: string }).signed_doc_url);
      assert.equal(savedName(await server.request('GET', link.pathname)), HINDI);
    });

    test('sandbox download of a mock USB DSC request', async () => {
      const { testKey } = await server.newAccount({ testMode: true });
      const parts = [
        { field: 'file', filename: HINDI, bytes: pdf },
        { field: 'signer_name', bytes: Buffer.from('Asha Verma') },
        { field: 'signer_email', bytes: Buffer.from('asha@example.com') },
      ];
      const { body, contentType } = multipartBody(parts);
      const created = await server.app.inject({
        method: 'POST',
        url: `${API}/sandbox/mock-dsc/requests`,
        headers: { 'x-api-key': testKey!, 'content-type': contentType },
        payload: body,
      });
      assert.equal(created.statusCode, 201, created.body);
      const request = created.json() as { public_id: string; signing_url: string };
      assert.equal(
        (await server.request('POST', `${API}/signing/${tokenOf(request.signing_url)}/mock-dsc`)).statusCode,
        200,
      );
      await server.runJobs();
      assert.equal(
        savedName(
          await server.request('GET', `${API}/sandbox/mock-dsc/requests/${request.public_id}/download`, {
            key: testKey!,
          }),
        ),
        HINDI,
      );
    });
  });
}
