/**
 * The legacy document API end to end on SQLite and PostgreSQL: create from a doc_url served by a local HTTP
 * server (MOHAR_FETCH_ALLOW_PRIVATE=1), headless links, signing through the signer API, status flags and words,
 * signed_doc_url, download; idempotent replay; key mismatch; not-owner; unknown id; suspension; quota; test keys.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setMonthlyCallLimit, setSuspended } from '../../../server/domain/accounts/account-admin.js';
import { DATABASES } from '../../support/databases.js';
import { API, LEGACY, useTestServer } from '../../support/server.js';
import { APPROVER, SIGNER, legacyCreate, startDocServer, tokenOf, type DocServer } from './helpers.js';

for (const kind of DATABASES) {
  describe(`legacy document API on ${kind}`, () => {
    const t = useTestServer(kind, { MOHAR_FETCH_ALLOW_PRIVATE: '1' });
    let docs: DocServer;
    before(async () => {
      docs = await startDocServer();
    });
    after(() => docs.close());

    const mailsOf = async (envelopeId: string) =>
      t.server.ctx.db
        .selectFrom('outbox_mail')
        .select(['kind', 'to_address'])
        .where('envelope_id', '=', envelopeId)
        .execute();
    const status = (docId: number, key = t.account.key) =>
      t.server.request('GET', `${LEGACY}/document/app/sign/status/${docId}/`, { key });
    const word = async (docId: number) =>
      (await t.server.request('GET', `${LEGACY}/document/sign/status/?doc_id=${docId}`, { key: t.account.key })).json()
        .document_status as string;

    test('headless: create, links, sign and approve, statuses, signed_doc_url and download', async () => {
      const created = await legacyCreate(t.server, t.account.key, {
        docUrl: `${docs.base}/doc.pdf`,
        mail: false,
        redirectUrl: 'https://example.com/done',
      });
      assert.equal(created.statusCode, 200, created.body);
      const body = created.json();
      assert.equal(body.status, 'success');
      assert.ok(Number.isInteger(body.document_id) && body.document_id > 0);
      assert.match(body.envelope_id, /^[0-9a-f-]{36}$/);
      assert.deepEqual(
        body.signing_info.map((s: { name: string; email: string; sequence: number }) => [s.name, s.email, s.sequence]),
        [
          ['Asha Rao', 'asha@example.com', 1],
          ['Ravi Kumar', 'ravi@example.com', 2],
        ],
      );
      for (const s of body.signing_info) assert.match(s.signing_url, /\/sign\/[A-Za-z0-9_-]{40,}$/);
      assert.ok(created.headers['x-ratelimit-limit'], 'the create call carries rate-limit headers');

      // The same document is an envelope of the v1 API, naming its integer id; the signer's field is where asked.
      const envelope = (
        await t.server.request('GET', `${API}/envelopes/${body.envelope_id}`, { key: t.account.key })
      ).json();
      assert.equal(envelope.status, 'sent');
      assert.equal(envelope.metadata.legacy_document_id, body.document_id);
      assert.equal(envelope.redirect_url, 'https://example.com/done');
      assert.deepEqual(
        envelope.recipients.map((r: { role: string; signature_method: string }) => [r.role, r.signature_method]),
        [
          ['signer', 'electronic'],
          ['approver', 'review'],
        ],
      );
      const [field] = envelope.documents[0].fields;
      assert.deepEqual(
        [field.field_type, field.page_number, field.x, field.y, field.width, field.height],
        [1, 1, 72, 600, 150, 50],
      );
      assert.equal(
        envelope.documents[0].sha256,
        (
          await t.server.ctx.db
            .selectFrom('documents')
            .select('sha256')
            .where('id', '=', envelope.documents[0].document_id)
            .executeTakeFirstOrThrow()
        ).sha256,
      );
      assert.deepEqual(await mailsOf(body.envelope_id), [], 'headless: nobody is mailed');

      let s = (await status(body.document_id)).json();
      assert.deepEqual(s, {
        data: [
          {
            user_name: 'Asha Rao',
            email_of_user: 'asha@example.com',
            is_signed: false,
            is_rejected: false,
            rejection_reason: '',
            sequence: 1,
            signingCapacity: 'Signer',
            typeOfSignature: 'E-Signature',
          },
          {
            user_name: 'Ravi Kumar',
            email_of_user: 'ravi@example.com',
            is_signed: false,
            is_rejected: false,
            rejection_reason: '',
            sequence: 2,
            signingCapacity: 'Approver',
            typeOfSignature: 'Approver',
          },
        ],
      });
      assert.equal(await word(body.document_id), 'Sent');

      // The approver's link works once it is their turn.
      const [ashaLink, raviLink] = body.signing_info.map((x: { signing_url: string }) => tokenOf(x.signing_url));
      assert.equal((await t.server.request('GET', `${API}/signing/${raviLink}`)).json().action, 'wait');
      const signed = await t.server.request('POST', `${API}/signing/${ashaLink}`, {
        json: { action: 'sign', consent: true, signature: { kind: 'typed', text: 'Asha Rao' } },
      });
      assert.equal(signed.statusCode, 200, signed.body);
      s = (await status(body.document_id)).json();
      assert.deepEqual(
        s.data.map((r: { is_signed: boolean }) => r.is_signed),
        [true, false],
      );
      assert.equal(s.signed_doc_url, undefined, 'no link before everyone has signed');
      assert.equal(await word(body.document_id), 'Partially signed');
      const early = await t.server.request('GET', `${LEGACY}/document/download/?doc_id=${body.document_id}`, {
        key: t.account.key,
      });
      assert.equal(early.statusCode, 409);
      assert.equal(early.json().code, 'document_not_ready');

      // Fresh links: only the approver still has to act.
      const links = await t.server.request('POST', `${LEGACY}/document/signing-links/`, {
        key: t.account.key,
        json: { companyDetails: { api_key: t.account.key }, document_id: body.document_id },
      });
      assert.equal(links.statusCode, 200, links.body);
      assert.deepEqual(
        links
          .json()
          .signing_links.map((l: { email: string; role: string; status: string }) => [l.email, l.role, l.status]),
        [['ravi@example.com', 'approver', 'active']],
      );
      const fresh = tokenOf(links.json().signing_links[0].signing_url);
      assert.ok(Date.parse(links.json().signing_links[0].expires_at) > Date.now() + 29 * 86_400_000);

      const approved = await t.server.request('POST', `${API}/signing/${fresh}`, {
        json: { action: 'approve', consent: true },
      });
      assert.equal(approved.statusCode, 200, approved.body);
      assert.equal(approved.json().envelope_status, 'completed');
      assert.equal(approved.json().redirect_url, 'https://example.com/done');

      s = (await status(body.document_id)).json();
      assert.deepEqual(
        s.data.map((r: { is_signed: boolean }) => r.is_signed),
        [true, true],
      );
      assert.match(
        s.signed_doc_url,
        new RegExp(`^${t.server.ctx.config.baseUrl}${LEGACY}/document/signed/[^/]{60,}/$`),
      );
      assert.equal(await word(body.document_id), 'Fully signed');
      assert.deepEqual(
        (
          await t.server.request('POST', `${LEGACY}/document/signing-links/`, {
            key: t.account.key,
            json: { companyDetails: { api_key: t.account.key }, document_id: body.document_id },
          })
        ).json().signing_links,
        [],
      );

      // signed_doc_url needs no key and gives the final PDF, the same bytes as both downloads.
      const viaLink = await t.server.request('GET', new URL(s.signed_doc_url).pathname);
      assert.equal(viaLink.statusCode, 200, viaLink.body);
      assert.equal(viaLink.headers['content-type'], 'application/pdf');
      const viaKey = await t.server.request('GET', `${LEGACY}/document/download/?doc_id=${body.document_id}`, {
        key: t.account.key,
      });
      assert.equal(viaKey.statusCode, 200);
      const viaV1 = await t.server.request(
        'GET',
        `${API}/envelopes/${body.envelope_id}/documents/${envelope.documents[0].document_id}/download`,
        { key: t.account.key },
      );
      assert.ok(viaLink.rawPayload.equals(viaKey.rawPayload) && viaKey.rawPayload.equals(viaV1.rawPayload));
      assert.ok(
        viaLink.rawPayload.subarray(0, docs.pdf.length).equals(docs.pdf),
        'the fetched PDF is a prefix of the signed one',
      );
      assert.ok(viaLink.rawPayload.length > docs.pdf.length);

      // The link is unguessable and expires: a changed token and an old one are refused alike.
      const path = new URL(s.signed_doc_url).pathname;
      const parts = path.split('/').at(-2)!.split('.');
      parts[2] = (parts[2]![0] === 'A' ? 'B' : 'A') + parts[2]!.slice(1); // the IV: every character counts
      const tampered = path.replace(/[^/]+\/$/, `${parts.join('.')}/`);
      assert.notEqual(tampered, path);
      assert.equal((await t.server.request('GET', tampered)).statusCode, 410);
      t.server.clock.advance(3601);
      try {
        const expired = await t.server.request('GET', path);
        assert.equal(expired.statusCode, 410);
        assert.equal(expired.json().code, 'download_link_expired');
      } finally {
        t.server.clock.advance(-3601);
      }
    });

    test('with mail: invitations go out and the response has no signing_info', async () => {
      const created = await legacyCreate(t.server, t.account.key, { docUrl: `${docs.base}/doc.pdf` });
      assert.equal(created.statusCode, 200, created.body);
      assert.equal(created.json().signing_info, undefined);
      assert.deepEqual(await mailsOf(created.json().envelope_id), [
        { kind: 'invitation', to_address: 'asha@example.com' },
      ]);
    });

    test('sequence drives routing: equal numbers act in parallel, the list order does not matter', async () => {
      const second = { ...SIGNER, name: 'Bina', email: 'bina@example.com', sequence: 2, x_cor: 300 };
      const first = { ...SIGNER, name: 'Chetan', email: 'chetan@example.com', sequence: 1 };
      const alsoFirst = { ...APPROVER, sequence: 1 };
      const created = await legacyCreate(t.server, t.account.key, {
        docUrl: `${docs.base}/doc.pdf`,
        mail: false,
        recipients: [second, first, alsoFirst],
      });
      assert.equal(created.statusCode, 200, created.body);
      const state = (
        await t.server.request('GET', `${API}/envelopes/${created.json().envelope_id}/status`, { key: t.account.key })
      ).json();
      assert.deepEqual(
        state.recipients.map((r: { email: string; status: string }) => [r.email, r.status]),
        [
          ['bina@example.com', 'waiting'],
          ['chetan@example.com', 'active'],
          ['ravi@example.com', 'active'],
        ],
      );
    });

    test('a decline shows as Rejected with the reason', async () => {
      const created = (
        await legacyCreate(t.server, t.account.key, { docUrl: `${docs.base}/doc.pdf`, mail: false })
      ).json();
      const declined = await t.server.request(
        'POST',
        `${API}/signing/${tokenOf(created.signing_info[0].signing_url)}`,
        { json: { action: 'decline', decline_reason: 'wrong amount' } },
      );
      assert.equal(declined.statusCode, 200, declined.body);
      const s = (await status(created.document_id)).json();
      assert.deepEqual(
        [s.data[0].is_rejected, s.data[0].rejection_reason, s.data[1].is_rejected],
        [true, 'wrong amount', false],
      );
      assert.equal(await word(created.document_id), 'Rejected');
      assert.deepEqual(await mailsOf(created.envelope_id), [], 'headless: not even the decline is mailed');
    });

    test('Idempotency-Key replays the first response; the quota counts the call once', async () => {
      const account = await t.server.newAccount();
      const first = await legacyCreate(t.server, account.key, {
        docUrl: `${docs.base}/doc.pdf`,
        mail: false,
        idempotencyKey: 'order-42',
      });
      assert.equal(first.statusCode, 200, first.body);
      const again = await legacyCreate(t.server, account.key, {
        docUrl: `${docs.base}/doc.pdf`,
        mail: false,
        idempotencyKey: 'order-42',
      });
      assert.equal(again.statusCode, 200);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.deepEqual(again.json(), first.json());
      const other = await legacyCreate(t.server, account.key, {
        docUrl: `${docs.base}/doc.pdf`,
        mail: true,
        idempotencyKey: 'order-42',
      });
      assert.equal(other.statusCode, 409);
      assert.equal(other.json().code, 'idempotency_conflict');
      const count = await t.server.ctx.db
        .selectFrom('legacy_documents')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('account_id', '=', account.accountId)
        .executeTakeFirstOrThrow();
      assert.equal(Number(count.n), 1);
      const usage = (await t.server.request('GET', `${LEGACY}/usage/summary/`, { key: account.key })).json();
      assert.equal(usage.calls_used, 1);
    });

    test('the key in the body must match X-Api-Key', async () => {
      const other = await t.server.newAccount();
      const response = await legacyCreate(t.server, t.account.key, {
        docUrl: `${docs.base}/doc.pdf`,
        bodyKey: other.key,
      });
      assert.equal(response.statusCode, 401);
      assert.equal(response.json().code, 'invalid_api_key');
      assert.equal(response.json().errors[0].path, '/companyDetails/api_key');
      const links = await t.server.request('POST', `${LEGACY}/document/signing-links/`, {
        key: t.account.key,
        json: { companyDetails: { api_key: 'qsk_live_nope' }, document_id: 1 },
      });
      assert.equal(links.statusCode, 401);
    });

    test('status: missing key 401, another account 403 document_not_owned, unknown id 404', async () => {
      const created = (
        await legacyCreate(t.server, t.account.key, { docUrl: `${docs.base}/doc.pdf`, mail: false })
      ).json();
      assert.equal(
        (await t.server.request('GET', `${LEGACY}/document/app/sign/status/${created.document_id}/`)).statusCode,
        401,
      );
      assert.equal((await status(created.document_id, 'qsk_live_wrong')).statusCode, 401);
      const stranger = await t.server.newAccount();
      const foreign = await status(created.document_id, stranger.key);
      assert.equal(foreign.statusCode, 403);
      assert.equal(foreign.json().code, 'document_not_owned');
      for (const path of [
        `/document/sign/status/?doc_id=${created.document_id}`,
        `/document/download/?doc_id=${created.document_id}`,
      ]) {
        assert.equal((await t.server.request('GET', `${LEGACY}${path}`, { key: stranger.key })).statusCode, 403, path);
      }
      const links = await t.server.request('POST', `${LEGACY}/document/signing-links/`, {
        key: stranger.key,
        json: { companyDetails: { api_key: stranger.key }, document_id: created.document_id },
      });
      assert.equal(links.statusCode, 403);
      const unknown = await status(2_000_000_000);
      assert.equal(unknown.statusCode, 404);
      assert.equal(unknown.json().code, 'document_not_found');
      assert.equal((await status(0)).statusCode, 422, 'ids start at 1');
    });

    test('a suspended account gets 403 account_suspended until resumed', async () => {
      const account = await t.server.newAccount();
      await setSuspended(t.server.ctx, account.accountId, true);
      try {
        const refused = await legacyCreate(t.server, account.key, { docUrl: `${docs.base}/doc.pdf`, mail: false });
        assert.equal(refused.statusCode, 403);
        assert.equal(refused.json().code, 'account_suspended');
        assert.equal(
          (
            await t.server.request('GET', `${API}/envelopes/00000000-0000-4000-8000-000000000000`, { key: account.key })
          ).json().code,
          'account_suspended',
          'v1 calls too',
        );
      } finally {
        await setSuspended(t.server.ctx, account.accountId, false);
      }
      assert.equal(
        (await legacyCreate(t.server, account.key, { docUrl: `${docs.base}/doc.pdf`, mail: false })).statusCode,
        200,
      );
    });

    test('the monthly quota: 429 monthly_quota_exceeded with Retry-After; failed calls give their unit back', async () => {
      const account = await t.server.newAccount();
      await setMonthlyCallLimit(t.server.ctx, account.accountId, 2);
      const failed = await legacyCreate(t.server, account.key, { docUrl: `${docs.base}/text`, mail: false });
      assert.equal(failed.statusCode, 422);
      for (let i = 0; i < 2; i++) {
        assert.equal(
          (await legacyCreate(t.server, account.key, { docUrl: `${docs.base}/doc.pdf`, mail: false })).statusCode,
          200,
        );
      }
      const refused = await legacyCreate(t.server, account.key, { docUrl: `${docs.base}/doc.pdf`, mail: false });
      assert.equal(refused.statusCode, 429);
      assert.equal(refused.json().code, 'monthly_quota_exceeded');
      const now = t.server.clock.now();
      const nextMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
      const retryAfter = Number(refused.headers['retry-after']);
      assert.ok(
        Math.abs(retryAfter - (nextMonth - now.getTime()) / 1000) < 5,
        `Retry-After ${retryAfter} runs to the start of next month`,
      );
      assert.ok(refused.headers['x-ratelimit-remaining'] !== undefined, 'rate-limit headers on the 429 too');
      const usage = (await t.server.request('GET', `${LEGACY}/usage/summary/`, { token: account.token })).json();
      assert.equal(usage.period, now.toISOString().slice(0, 7));
      assert.deepEqual(
        [usage.monthly_call_limit, usage.calls_used, usage.calls_remaining, usage.test_calls],
        [2, 2, 0, 0],
      );
      assert.deepEqual(usage.rate_limit, { requests_per_minute: 1_000_000, window_seconds: 60, per: 'api_key' });
      // Other calls are not counted against the quota.
      assert.equal(
        (await t.server.request('GET', `${LEGACY}/usage/summary/`, { key: account.key })).json().calls_used,
        2,
      );
    });

    test('a test key: realistic response, mail kept as test (never delivered), no quota used, the document marked test', async () => {
      const account = await t.server.newAccount({ testMode: true });
      await setMonthlyCallLimit(t.server.ctx, account.accountId, 0);
      const created = await legacyCreate(t.server, account.testKey!, { docUrl: `${docs.base}/doc.pdf`, mail: true });
      assert.equal(created.statusCode, 200, created.body);
      assert.deepEqual(Object.keys(created.json()).sort(), ['document_id', 'envelope_id', 'status']);
      // Issue 16: a test document's mail is queued like a live one's but marked test; the send job keeps it
      // (test/server/workflow/test-mode.test.ts).
      const mails = await t.server.ctx.db
        .selectFrom('outbox_mail')
        .select(['kind', 'test'])
        .where('envelope_id', '=', created.json().envelope_id)
        .execute();
      assert.deepEqual(
        mails.map((m) => [m.kind, m.test]),
        [['invitation', 1]],
      );
      const row = await t.server.ctx.db
        .selectFrom('legacy_documents')
        .select(['test', 'send_mail'])
        .where('id', '=', created.json().document_id)
        .executeTakeFirstOrThrow();
      assert.deepEqual([row.test, row.send_mail], [1, 1]);
      const envelope = (
        await t.server.request('GET', `${API}/envelopes/${created.json().envelope_id}`, { key: account.testKey! })
      ).json();
      assert.equal(envelope.metadata.test, true);
      const usage = (await t.server.request('GET', `${LEGACY}/usage/summary/`, { key: account.testKey! })).json();
      assert.deepEqual([usage.calls_used, usage.test_calls], [0, 1]);
      const live = await legacyCreate(t.server, account.key, { docUrl: `${docs.base}/doc.pdf`, mail: false });
      assert.equal(live.statusCode, 429, 'the live key of the same account is held to the quota');
    });

    test('validation names the failing field', async () => {
      const noPlace = await legacyCreate(t.server, t.account.key, {
        docUrl: `${docs.base}/doc.pdf`,
        recipients: [{ name: 'A', email: 'a@example.com', typeOfSignature: 'E-Signature' }],
      });
      assert.equal(noPlace.statusCode, 422);
      assert.deepEqual(
        noPlace.json().errors.map((e: { path: string }) => e.path),
        ['/recipientDetail/0/page_no', '/recipientDetail/0/x_cor', '/recipientDetail/0/y_cor'],
      );
      const badType = await legacyCreate(t.server, t.account.key, {
        docUrl: `${docs.base}/doc.pdf`,
        recipients: [{ ...SIGNER, typeOfSignature: 'Witness' }],
      });
      assert.equal(badType.statusCode, 422);
      assert.equal(badType.json().errors[0].path, 'body/recipientDetail/0/typeOfSignature');
      const offPage = await legacyCreate(t.server, t.account.key, {
        docUrl: `${docs.base}/doc.pdf`,
        recipients: [
          { ...SIGNER, page_no: 3 },
          { ...SIGNER, email: 'b@example.com', x_cor: 600 },
        ],
      });
      assert.equal(offPage.statusCode, 422);
      assert.deepEqual(
        offPage.json().errors.map((e: { path: string }) => e.path),
        ['/recipientDetail/0/page_no', '/recipientDetail/1/x_cor'],
      );
      const aadhaar = await legacyCreate(t.server, t.account.key, {
        docUrl: `${docs.base}/doc.pdf`,
        recipients: [{ ...SIGNER, typeOfSignature: 'aadhaar_digital_signature' }],
      });
      assert.equal(aadhaar.json().code, 'aadhaar_not_configured');
      // Near the right edge the box shrinks to fit (612-pt page).
      const edge = await legacyCreate(t.server, t.account.key, {
        docUrl: `${docs.base}/doc.pdf`,
        mail: false,
        recipients: [{ ...SIGNER, x_cor: 500 }],
      });
      assert.equal(edge.statusCode, 200, edge.body);
      const fields = (
        await t.server.request('GET', `${API}/envelopes/${edge.json().envelope_id}`, { key: t.account.key })
      ).json().documents[0].fields;
      assert.equal(fields[0].width, 112);
    });

    test('the legacy OpenAPI document lists the document calls', async () => {
      const doc = (await t.server.request('GET', `${LEGACY}/openapi.json`)).json();
      for (const path of [
        '/document/recipients/create/',
        '/document/signing-links/',
        '/document/app/sign/status/{doc_id}/',
        '/document/sign/status/',
        '/document/download/',
        '/usage/summary/',
      ]) {
        assert.ok(doc.paths[path], `${path} documented`);
      }
      const create = doc.paths['/document/recipients/create/'].post;
      assert.deepEqual(create.security, [{ apiKey: [] }]);
      assert.ok(create.responses['429'] && create.responses['403'] && create.responses['200']);
      assert.ok(create.parameters.some((p: { name: string }) => p.name === 'idempotency-key'));
      assert.deepEqual(
        create.requestBody.content['application/json'].schema.properties.recipientDetail.items.properties
          .typeOfSignature.enum,
        ['E-Signature', 'aadhaar_digital_signature', 'Approver', 'Reviewer'],
      );
    });

    test('doc_url problems: not a PDF, a 404, too many redirects, a redirect to ftp', async () => {
      const account = await t.server.newAccount();
      const expectCode = async (path: string, status: number, code: string) => {
        const response = await legacyCreate(t.server, account.key, { docUrl: `${docs.base}${path}`, mail: false });
        assert.equal(response.statusCode, status, `${path}: ${response.body}`);
        assert.equal(response.json().code, code, path);
        assert.equal(response.json().errors[0].path, '/documentDetails/doc_url', path);
      };
      await expectCode('/text', 422, 'invalid_pdf');
      await expectCode('/missing', 422, 'doc_url_fetch_failed');
      await expectCode('/hop/4', 422, 'doc_url_not_allowed');
      await expectCode('/to-ftp', 422, 'doc_url_not_allowed');
      assert.equal(
        (await legacyCreate(t.server, account.key, { docUrl: `${docs.base}/hop/3`, mail: false })).statusCode,
        200,
        'three redirects are followed',
      );
      const usage = (await t.server.request('GET', `${LEGACY}/usage/summary/`, { key: account.key })).json();
      assert.equal(usage.calls_used, 1, 'failed creates use no quota');
      const envelopes = await t.server.ctx.db
        .selectFrom('envelopes')
        .select('status')
        .where('account_id', '=', account.accountId)
        .execute();
      assert.deepEqual(
        envelopes.map((e) => e.status),
        ['sent'],
        'failed creates leave no envelope',
      );
    });
  });
}
