/**
 * Issue 16.9: no log line of a real app carries a signing token or another secret from a path or query
 * (signing page, signer API, legacy signed-document link, ?token= links), neither in the request and
 * response lines nor in error lines; the route's shape stays readable (`/sign/[redacted]`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DATABASES } from '../../support/databases.js';
import { makeDraft, sendDraft } from '../../support/envelopes.js';
import { API, LEGACY, startTestServer, type TestAccount, type TestServer } from '../../support/server.js';
import { redactSecrets } from '../../../server/http/log-redaction.js';

describe('redactSecrets', () => {
  test('tokens go, the shape and the ids stay', () => {
    const cases: [string, string][] = [
      ['/sign/abc_DEF-123', '/sign/[redacted]'],
      ['/sign/assets/index-1a2b.js', '/sign/assets/index-1a2b.js'],
      [
        `${API}/signing/tok/documents/0193f0e2-6c1a-7b3e-9d2f-000000000001/download`,
        `${API}/signing/[redacted]/documents/0193f0e2-6c1a-7b3e-9d2f-000000000001/download`,
      ],
      [`${LEGACY}/document/signed/tok/`, `${LEGACY}/document/signed/[redacted]/`],
      ['/sign/aadhaar/go/txn-1', '/sign/aadhaar/go/[redacted]'],
      ['/app/set-password?token=abc&next=%2Fapp', '/app/set-password?token=[redacted]&next=%2Fapp'],
      [
        'mohar://sign?url=https%3A%2F%2Fh%2Fsign%2Ftok%3Fapi_key%3Dk',
        'mohar://sign?url=https%3A%2F%2Fh%2Fsign%2F[redacted]%3Fapi_key%3D[redacted]',
      ],
      ['Authorization: Bearer eyJ.a.b', 'Authorization: Bearer [redacted]'],
      ['key qsk_live_AbC123 refused', 'key qsk_live_[redacted] refused'],
      [`${API}/envelopes?limit=10&status=sent`, `${API}/envelopes?limit=10&status=sent`],
    ];
    for (const [input, expected] of cases) assert.equal(redactSecrets(input), expected);
  });
});

for (const kind of DATABASES) {
  describe(`log lines without tokens on ${kind}`, () => {
    let server: TestServer;
    let account: TestAccount;
    let token: string;
    let envelopeId: string;
    let documentId: string;
    before(async () => {
      server = await startTestServer(kind);
      account = await server.newAccount();
      const draft = await makeDraft(server, account.key, {
        recipients: [{ name: 'Asha Rao', email: 'asha@example.com' }],
      });
      await sendDraft(server, account.key, draft);
      const session = await server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
        key: account.key,
        json: { recipient_id: draft.recipientIds[0], mode: 'redirect' },
      });
      assert.equal(session.statusCode, 201, session.body);
      token = (session.json() as { signing_url: string }).signing_url.split('/sign/')[1]!;
      envelopeId = draft.id;
      documentId = draft.documentId;
    });
    after(() => server?.close());

    /** The lines logged while `run` ran; none may contain any of `secrets`. */
    async function linesOf(run: () => Promise<unknown>, secrets: string[]): Promise<string[]> {
      const from = server.logs.length;
      await run();
      const lines = server.logs.slice(from);
      assert.ok(lines.length > 0, 'something was logged');
      for (const line of lines) {
        for (const secret of secrets) assert.ok(!line.includes(secret), `a log line carries a secret: ${line}`);
      }
      return lines;
    }

    test('the signing page and the signer API: request and response lines show the route, not the token', async () => {
      const lines = await linesOf(async () => {
        await server.request('GET', `/sign/${token}`);
        assert.equal((await server.request('GET', `${API}/signing/${token}`)).statusCode, 200);
        await server.request('GET', `${API}/signing/${token}/documents/${documentId}`);
        await server.request('POST', `${API}/signing/${token}`, { json: { action: 'nonsense' } });
      }, [token, encodeURIComponent(token)]);
      const urls = lines.map((l) => (JSON.parse(l) as { req?: { url?: string } }).req?.url).filter(Boolean);
      assert.ok(urls.includes('/sign/[redacted]'), urls.join(' '));
      assert.ok(urls.includes(`${API}/signing/[redacted]`), urls.join(' '));
      assert.ok(urls.includes(`${API}/signing/[redacted]/documents/${documentId}`), 'ids that are not secrets stay');
    });

    test('an error on a token route (stored bytes missing: 500) logs no token', async () => {
      await server.ctx.db
        .updateTable('envelope_documents')
        .set({ current_sha256: 'f'.repeat(64) })
        .where('envelope_id', '=', envelopeId)
        .execute();
      const lines = await linesOf(async () => {
        const broken = await server.request('GET', `${API}/signing/${token}/documents/${documentId}`);
        assert.equal(broken.statusCode, 500, broken.body);
      }, [token]);
      assert.ok(
        lines.some((l) => (JSON.parse(l) as { level: number }).level >= 50),
        'the error was logged',
      );
    });

    test('an error whose message and cause carry a signing URL, logged through the app logger', async () => {
      const url = `https://mohar.example.com/sign/${token}?step=2`;
      await linesOf(async () => {
        const error = new Error(`could not open ${url}`, { cause: new Error(`GET ${API}/signing/${token} failed`) });
        server.app.log.error({ err: error, link: url }, `failed on ${url}`);
        server.app.log.info(`mohar://sign?url=${encodeURIComponent(url)}`);
      }, [token, encodeURIComponent(token)]);
    });

    test('legacy signed-document links, ?token= links and other secrets in a query', async () => {
      const secret = 'Zk3vQw9sX2bY7nP4mL8rT1cD6hJ0aE5u';
      const lines = await linesOf(async () => {
        await server.request('GET', `${LEGACY}/document/signed/${secret}/`);
        await server.request('GET', `/app/set-password?token=${secret}`);
        await server.request('GET', `${API}/envelopes?limit=5&access_token=${secret}`, { key: account.key });
        await server.request('GET', `/sign/${secret}`);
        await server.request('GET', `/sign/aadhaar/go/${secret}`);
      }, [secret]);
      const urls = lines.map((l) => (JSON.parse(l) as { req?: { url?: string } }).req?.url).filter(Boolean);
      assert.ok(urls.includes(`${LEGACY}/document/signed/[redacted]/`), urls.join(' '));
      assert.ok(urls.includes('/app/set-password?token=[redacted]'), urls.join(' '));
      assert.ok(urls.includes(`${API}/envelopes?limit=5&access_token=[redacted]`), urls.join(' '));
    });
  });
}
