/**
 * Issue 16 point 12: creating a signing session or link is audited (who created it, never the token), each act
 * records how the signer was reached (mail link, signing session, legacy link) in its audit row and in the
 * certificate of completion, and MOHAR_TRUST_PROXY makes the recorded address the client's behind a proxy.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { certificateBlocks, loadCertificateInput } from '../../../server/audit/index.js';
import { ConfigError, parseConfig } from '../../../server/config.js';
import { issueSigningLinks } from '../../../server/domain/legacy/signing-links.js';
import { hashSessionToken, insertSession } from '../../../server/domain/workflow/sessions.js';
import { DATABASES } from '../../support/databases.js';
import { makeDraft, sendDraft } from '../../support/envelopes.js';
import { API, useTestServer, type TestServer } from '../../support/server.js';

const tokenOf = (url: string) => url.split('/sign/')[1]!;

async function auditRows(server: TestServer, envelopeId: string) {
  const rows = await server.ctx.db
    .selectFrom('audit_events')
    .selectAll()
    .where('envelope_id', '=', envelopeId)
    .orderBy('seq')
    .execute();
  return rows.map((r) => ({ ...r, parsed: JSON.parse(r.details) as Record<string, unknown> }));
}

async function sentEnvelope(server: TestServer, key: string, people = 1) {
  const recipients = Array.from({ length: people }, (_, i) => ({
    name: `Signer ${i + 1}`,
    email: `s${i + 1}@example.com`,
  }));
  const draft = await makeDraft(server, key, { recipients, routing_order: 'parallel' });
  await sendDraft(server, key, draft);
  return draft;
}

const sign = (server: TestServer, token: string, headers: Record<string, string> = {}) =>
  server.request('POST', `${API}/signing/${token}`, {
    headers,
    json: { action: 'sign', consent: true, signature: { kind: 'typed', text: 'Signer' } },
  });

describe('MOHAR_TRUST_PROXY values', () => {
  test('off by default; 1/true/0/false; a list of proxy addresses and CIDR ranges; anything else refused', () => {
    assert.equal(parseConfig({}).trustProxy, false);
    assert.equal(parseConfig({ MOHAR_TRUST_PROXY: 'true' }).trustProxy, true);
    assert.equal(parseConfig({ MOHAR_TRUST_PROXY: '1' }).trustProxy, true);
    assert.equal(parseConfig({ MOHAR_TRUST_PROXY: '0' }).trustProxy, false);
    assert.deepEqual(parseConfig({ MOHAR_TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,::1,fd00::/8' }).trustProxy, [
      '127.0.0.1',
      '10.0.0.0/8',
      '::1',
      'fd00::/8',
    ]);
    for (const bad of ['yes', 'proxy.example.com', '10.0.0.0/33', '10.0.0.0/8/1', ',']) {
      assert.throws(
        () => parseConfig({ MOHAR_TRUST_PROXY: bad }),
        (e: unknown) => e instanceof ConfigError && e.message.includes('MOHAR_TRUST_PROXY'),
        bad,
      );
    }
  });
});

for (const kind of DATABASES) {
  describe(`how signers were reached, on ${kind}`, () => {
    const t = useTestServer(kind);

    test('a signing session is audited with its creator (key or console user), never its token', async () => {
      const draft = await sentEnvelope(t.server, t.account.key);
      const byKey = await t.server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
        key: t.account.key,
        json: { recipient_id: draft.recipientIds[0], mode: 'redirect' },
      });
      assert.equal(byKey.statusCode, 201, byKey.body);
      const byUser = await t.server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
        token: t.account.token,
        json: { recipient_id: draft.recipientIds[0], mode: 'redirect' },
      });
      assert.equal(byUser.statusCode, 201, byUser.body);
      const keyId = (
        await t.server.ctx.db
          .selectFrom('api_keys')
          .select('id')
          .where('account_id', '=', t.account.accountId)
          .where('revoked_at', 'is', null)
          .where('mode', '=', 'live')
          .executeTakeFirstOrThrow()
      ).id;
      const user = await t.server.ctx.db
        .selectFrom('users')
        .select('id')
        .where('email', '=', t.account.email)
        .executeTakeFirstOrThrow();

      const created = (await auditRows(t.server, draft.id)).filter((r) => r.action === 'signing_session.created');
      assert.equal(created.length, 2);
      assert.deepEqual([created[0]!.actor_type, created[0]!.actor_id], ['api_key', keyId]);
      assert.deepEqual([created[1]!.actor_type, created[1]!.actor_id], ['user', user.id]);
      assert.equal(created[0]!.parsed.recipient_id, draft.recipientIds[0]);
      assert.equal(created[0]!.parsed.reached_by, 'signing_session');
      for (const [row, response] of [
        [created[0]!, byKey],
        [created[1]!, byUser],
      ] as const) {
        const token = tokenOf(response.json().signing_url);
        assert.ok(
          !row.details.includes(token) && !row.details.includes(hashSessionToken(token)),
          'no token (nor its hash) in the audit row',
        );
      }
    });

    test('each act records how the signer was reached: signing session, mail link, legacy link', async () => {
      const draft = await sentEnvelope(t.server, t.account.key, 3);
      const [a, b, c] = draft.recipientIds as [string, string, string];
      const session = await t.server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
        key: t.account.key,
        json: { recipient_id: a, mode: 'redirect' },
      });
      const now = t.server.ctx.now();
      // Legacy links first: a mail link issued after them replaces b's (a reissue revokes the earlier kept links).
      const legacy = await issueSigningLinks(t.server.ctx, draft.id);
      const legacyUrl = legacy.find((l) => l.email === 's3@example.com')!.signing_url;
      const mailUrl = await insertSession(t.server.ctx.db, t.server.ctx.config.baseUrl, {
        envelopeId: draft.id,
        recipientId: b,
        mode: 'email',
        origin: null,
        returnUrl: null,
        expiresAt: new Date(now.getTime() + 86_400_000),
        now,
        kind: 'mail',
      });

      assert.equal((await sign(t.server, tokenOf(session.json().signing_url))).statusCode, 200);
      assert.equal((await sign(t.server, tokenOf(mailUrl))).statusCode, 200);
      assert.equal((await sign(t.server, tokenOf(legacyUrl))).statusCode, 200);

      const rows = await auditRows(t.server, draft.id);
      const actOf = (id: string) => rows.find((r) => r.action === 'recipient.signed' && r.actor_id === id)!;
      assert.equal(actOf(a).parsed.reached_by, 'signing_session');
      assert.equal(actOf(b).parsed.reached_by, 'mail_link');
      assert.equal(actOf(c).parsed.reached_by, 'legacy_link');
      const links = rows.filter((r) => r.action === 'signing_link.created');
      assert.ok(
        links.some(
          (r) => r.parsed.recipient_id === b && r.parsed.reached_by === 'mail_link' && r.actor_type === 'system',
        ),
      );
      assert.ok(links.some((r) => r.parsed.recipient_id === c && r.parsed.reached_by === 'legacy_link'));

      const text = certificateBlocks(await loadCertificateInput(t.server.ctx.db, draft.id), { issuedAt: new Date() })
        .map((block) => ('text' in block ? block.text : ''))
        .join('\n');
      for (const phrase of ['Reached by', 'signing session', 'mail link', 'legacy link']) {
        assert.ok(text.includes(phrase), `the certificate says ${phrase}`);
      }
    });

    test('a decline records how the signer was reached and the socket address (MOHAR_TRUST_PROXY off)', async () => {
      const draft = await sentEnvelope(t.server, t.account.key);
      const session = await t.server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
        key: t.account.key,
        json: { recipient_id: draft.recipientIds[0], mode: 'redirect' },
      });
      const declined = await t.server.request('POST', `${API}/signing/${tokenOf(session.json().signing_url)}`, {
        headers: { 'x-forwarded-for': '203.0.113.7' },
        json: { action: 'decline', decline_reason: 'no' },
      });
      assert.equal(declined.statusCode, 200, declined.body);
      const row = (await auditRows(t.server, draft.id)).find((r) => r.action === 'recipient.declined')!;
      assert.equal(row.parsed.reached_by, 'signing_session');
      assert.equal(row.parsed.ip, '127.0.0.1', 'without MOHAR_TRUST_PROXY a forwarded header is not believed');
    });
  });

  describe(`MOHAR_TRUST_PROXY on ${kind}`, () => {
    const t = useTestServer(kind, { MOHAR_TRUST_PROXY: 'true' });

    test('the act records the forwarded client address', async () => {
      const draft = await sentEnvelope(t.server, t.account.key);
      const session = await t.server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
        key: t.account.key,
        json: { recipient_id: draft.recipientIds[0], mode: 'redirect' },
      });
      const signed = await sign(t.server, tokenOf(session.json().signing_url), { 'x-forwarded-for': '203.0.113.7' });
      assert.equal(signed.statusCode, 200, signed.body);
      const row = (await auditRows(t.server, draft.id)).find((r) => r.action === 'recipient.signed')!;
      assert.equal(row.parsed.ip, '203.0.113.7');
    });
  });
}
