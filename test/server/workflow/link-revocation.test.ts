/**
 * Issue 16, point 11: a recipient's link is reissued, not multiplied. A new mail link (reminder, your-turn) or
 * legacy link revokes that recipient's earlier ones; API signing sessions are separate (15 minutes, for a signer
 * who is there now). POST /envelopes/{id}/recipients/{rid}/revoke-links ends every live link of a recipient.
 * A revoked link answers 410 signing_link_revoked. Mail and legacy links live MOHAR_SIGNING_LINK_TTL_DAYS at most.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseConfig } from '../../../server/config.js';
import { DATABASES } from '../../support/databases.js';
import { makeDraft, sendDraft } from '../../support/envelopes.js';
import { API, LEGACY, startTestServer, type TestAccount, type TestServer } from '../../support/server.js';
import { legacyCreate, startDocServer, tokenOf, type DocServer } from '../legacy/helpers.js';

const TTL_DAYS = 7;

for (const kind of DATABASES) {
  describe(`signing link lifetime and revocation on ${kind}`, () => {
    let server: TestServer;
    let account: TestAccount;
    let docs: DocServer;
    before(async () => {
      docs = await startDocServer();
      server = await startTestServer(kind, {
        MOHAR_SIGNING_LINK_TTL_DAYS: String(TTL_DAYS),
        MOHAR_FETCH_ALLOW_PRIVATE: '1',
      });
      account = await server.newAccount();
    });
    after(async () => {
      await server?.close();
      await docs?.close();
    });

    /** The links mailed to a recipient, oldest first (read through the outbox listing, as an admin would). */
    async function mailedLinks(envelopeId: string, email: string): Promise<string[]> {
      const token = await server.login(account.email, account.password);
      const listing = await server.request('GET', `${LEGACY}/mail/outbox/?envelope_id=${envelopeId}&include=body`, {
        token,
      });
      assert.equal(listing.statusCode, 200, listing.body);
      const items = (listing.json().items as { to: string; text: string }[]).filter((m) => m.to === email).reverse();
      return items.map((m) => /\/sign\/([A-Za-z0-9_-]+)/.exec(m.text)![1]!);
    }
    const view = (token: string) => server.request('GET', `${API}/signing/${token}`);

    test('a reminder revokes the earlier mail link; an API signing session does not', async () => {
      const draft = await makeDraft(server, account.key, {
        recipients: [{ name: 'Asha Rao', email: 'asha-11@example.com' }],
        expire_in_days: 3650,
      });
      await sendDraft(server, account.key, draft);
      const [invitation] = await mailedLinks(draft.id, 'asha-11@example.com');
      const newSession = async () =>
        (
          await server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
            key: account.key,
            json: { recipient_id: draft.recipientIds[0], mode: 'redirect' },
          })
        )
          .json()
          .signing_url.split('/sign/')[1] as string;
      await newSession();
      assert.equal((await view(invitation!)).statusCode, 200, 'a signing session leaves the mail link alone');
      server.clock.advance(3601);
      const session = await newSession();
      assert.equal(
        (await server.request('POST', `${API}/envelopes/${draft.id}/remind`, { key: account.key })).statusCode,
        200,
      );
      const links = await mailedLinks(draft.id, 'asha-11@example.com');
      assert.equal(links.length, 2);
      const old = await view(links[0]!);
      assert.equal(old.statusCode, 410, old.body);
      assert.equal(old.json().code, 'signing_link_revoked');
      assert.equal((await view(links[1]!)).statusCode, 200, 'the reminder link works');
      assert.equal((await view(session)).statusCode, 200, 'the reminder leaves the signing session alone');
    });

    test(`mail links live ${TTL_DAYS} days (MOHAR_SIGNING_LINK_TTL_DAYS), not until an envelope expiry ten years away`, async () => {
      const draft = await makeDraft(server, account.key, {
        recipients: [{ name: 'Ravi', email: 'ravi-11@example.com' }],
        expire_in_days: 3650,
      });
      await sendDraft(server, account.key, draft);
      const [link] = await mailedLinks(draft.id, 'ravi-11@example.com');
      server.clock.advance(TTL_DAYS * 86_400 - 60);
      assert.equal((await view(link!)).statusCode, 200);
      server.clock.advance(120);
      const expired = await view(link!);
      assert.equal(expired.statusCode, 410);
      assert.equal(expired.json().code, 'signing_session_expired');
    });

    test('legacy signing-links: each call reissues, the earlier links are revoked', async () => {
      const created = await legacyCreate(server, account.key, { docUrl: `${docs.base}/doc.pdf`, mail: false });
      assert.equal(created.statusCode, 200, created.body);
      const first = tokenOf(created.json().signing_info[0].signing_url);
      const again = await server.request('POST', `${LEGACY}/document/signing-links/`, {
        key: account.key,
        json: { companyDetails: { api_key: account.key }, document_id: created.json().document_id },
      });
      assert.equal(again.statusCode, 200, again.body);
      const second = tokenOf(again.json().signing_links[0].signing_url);
      assert.equal((await view(first)).json().code, 'signing_link_revoked');
      assert.equal((await view(second)).statusCode, 200);
    });

    test('revoke-links: every live link of the recipient ends, audited; 404 across accounts; 409 once finished', async () => {
      const draft = await makeDraft(server, account.key, {
        recipients: [
          { name: 'Kiran', email: 'kiran-11@example.com' },
          { name: 'Mira', email: 'mira-11@example.com' },
        ],
        routing_order: 'parallel',
      });
      await sendDraft(server, account.key, draft);
      const [mailLink] = await mailedLinks(draft.id, 'kiran-11@example.com');
      const [otherLink] = await mailedLinks(draft.id, 'mira-11@example.com');
      const session = (
        await server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
          key: account.key,
          json: { recipient_id: draft.recipientIds[0], mode: 'redirect' },
        })
      )
        .json()
        .signing_url.split('/sign/')[1] as string;
      const path = `${API}/envelopes/${draft.id}/recipients/${draft.recipientIds[0]}/revoke-links`;

      const stranger = await server.newAccount();
      const foreign = await server.request('POST', path, { key: stranger.key });
      assert.equal(foreign.statusCode, 404, foreign.body);
      assert.equal((await view(mailLink!)).statusCode, 200, 'nothing revoked by another account');

      const revoked = await server.request('POST', path, { key: account.key });
      assert.equal(revoked.statusCode, 200, revoked.body);
      assert.deepEqual(revoked.json(), { envelope_id: draft.id, recipient_id: draft.recipientIds[0], revoked: 2 });
      for (const token of [mailLink!, session]) {
        const answer = await view(token);
        assert.equal(answer.statusCode, 410);
        assert.equal(answer.json().code, 'signing_link_revoked');
      }
      assert.equal((await view(otherLink!)).statusCode, 200, 'the other recipient keeps theirs');
      const trail = (
        await server.request('GET', `${API}/envelopes/${draft.id}/audit-trail`, { key: account.key })
      ).json();
      const row = trail.events.find((e: { action: string }) => e.action === 'recipient.links_revoked');
      assert.ok(row, 'audited');
      assert.ok(!JSON.stringify(row).includes(mailLink!), 'no token in the audit row');

      const unknown = await server.request(
        'POST',
        `${API}/envelopes/${draft.id}/recipients/00000000-0000-4000-8000-000000000000/revoke-links`,
        { key: account.key },
      );
      assert.equal(unknown.statusCode, 404);
      assert.equal(
        (
          await server.request('POST', `${API}/envelopes/${draft.id}/void`, {
            key: account.key,
            json: { reason: 'wrong party' },
          })
        ).statusCode,
        200,
      );
      const finished = await server.request('POST', path, { key: account.key });
      assert.equal(finished.statusCode, 409, finished.body);
      assert.equal(finished.json().code, 'envelope_not_in_progress');
    });
  });
}

describe('MOHAR_SIGNING_LINK_TTL_DAYS', () => {
  test('defaults to 30 days; 1 to 90 accepted, other values refused', () => {
    assert.equal(parseConfig({}).signingLinkTtlDays, 30);
    assert.equal(parseConfig({ MOHAR_SIGNING_LINK_TTL_DAYS: '90' }).signingLinkTtlDays, 90);
    assert.throws(() => parseConfig({ MOHAR_SIGNING_LINK_TTL_DAYS: '91' }), /MOHAR_SIGNING_LINK_TTL_DAYS/);
    assert.throws(() => parseConfig({ MOHAR_SIGNING_LINK_TTL_DAYS: '0' }), /MOHAR_SIGNING_LINK_TTL_DAYS/);
  });
});
