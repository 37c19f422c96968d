/**
 * Issue 16 point 8b: a signing session's return_url is where the signing page sends the signer after the act,
 * so it must be an http(s) URL (never javascript:, data:, …), and an embedded session's must be on the
 * session's own (allowed) origin.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { DATABASES } from '../../support/databases.js';
import { makeDraft, sendDraft, type Draft } from '../../support/envelopes.js';
import { API, LEGACY, useTestServer } from '../../support/server.js';

const ORIGIN = 'https://app.example.com';

for (const kind of DATABASES) {
  describe(`signing session return_url on ${kind}`, () => {
    const t = useTestServer(kind);
    let draft: Draft;
    before(async () => {
      draft = await makeDraft(t.server, t.account.key, { recipients: [{ name: 'A', email: 'a@example.com' }] });
      await sendDraft(t.server, t.account.key, draft);
      const admin = await t.server.login(t.account.email, t.account.password);
      const saved = await t.server.request('PUT', `${LEGACY}/account/settings/`, {
        token: admin,
        json: { allowed_origins: [ORIGIN] },
      });
      assert.equal(saved.statusCode, 200, saved.body);
    });

    const session = (json: Record<string, unknown>) =>
      t.server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
        key: t.account.key,
        json: { recipient_id: draft.recipientIds[0], ...json },
      });

    test('scripts and other schemes are refused with 422 naming return_url', async () => {
      for (const returnUrl of [
        'javascript:alert(document.domain)',
        'JavaScript://%0aalert(1)',
        'data:text/html,<script>alert(1)</script>',
        'vbscript:msgbox(1)',
        'file:///etc/passwd',
        'ftp://example.com/x',
      ]) {
        for (const mode of [{ mode: 'redirect' }, { mode: 'embedded', origin: ORIGIN }]) {
          const response = await session({ ...mode, return_url: returnUrl });
          assert.equal(response.statusCode, 422, `${returnUrl} (${mode.mode}): ${response.body}`);
          assert.equal(response.json().code, 'validation_failed');
          assert.ok(JSON.stringify(response.json().errors).includes('return_url'), response.body);
        }
      }
    });

    test('redirect mode takes any http(s) URL, and the signer view and act answer carry it', async () => {
      const response = await session({ mode: 'redirect', return_url: 'https://partner.example.org/done?x=1' });
      assert.equal(response.statusCode, 201, response.body);
      const link = (response.json().signing_url as string).split('/sign/')[1]!;
      const view = await t.server.request('GET', `${API}/signing/${link}`);
      assert.equal(view.json().session.return_url, 'https://partner.example.org/done?x=1');
    });

    test('embedded mode: the return_url must be on the session origin', async () => {
      const elsewhere = await session({
        mode: 'embedded',
        origin: ORIGIN,
        return_url: 'https://evil.example.net/phish',
      });
      assert.equal(elsewhere.statusCode, 422, elsewhere.body);
      assert.equal(elsewhere.json().code, 'validation_failed');
      assert.equal(elsewhere.json().errors[0].path, '/return_url');
      const otherPort = await session({
        mode: 'embedded',
        origin: ORIGIN,
        return_url: 'https://app.example.com:8443/done',
      });
      assert.equal(otherPort.statusCode, 422, otherPort.body);
      const same = await session({
        mode: 'embedded',
        origin: ORIGIN,
        return_url: 'https://app.example.com/signed?id=1',
      });
      assert.equal(same.statusCode, 201, same.body);
    });
  });
}
