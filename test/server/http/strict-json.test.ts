/**
 * Issue 16.1: JSON bodies are not type-coerced (a number where a string is expected is a 422 naming the
 * field, never a silent "123"); query strings, path parameters and headers still are (`?limit=10`).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { DATABASES } from '../../support/databases.js';
import { API, LEGACY, useTestServer } from '../../support/server.js';

function assertNamesField(response: LightMyRequestResponse, path: string): void {
  assert.equal(response.statusCode, 422, response.body);
  assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
  const problem = response.json() as { code: string; errors: { path: string }[] };
  assert.equal(problem.code, 'validation_failed');
  const paths = problem.errors.map((e) => e.path);
  assert.ok(paths.includes(path), `${path} in ${paths.join(', ')}`);
}

for (const kind of DATABASES) {
  describe(`JSON bodies are not coerced on ${kind}`, () => {
    const t = useTestServer(kind);
    const call = (method: string, url: string, json: unknown) =>
      t.server.request(method, url, { key: t.account.key, json });
    const draft = async (): Promise<string> => {
      const response = await call('POST', `${API}/envelopes`, {
        title: 'Strict',
        recipients: [{ name: 'Asha', email: 'asha@example.com' }],
      });
      assert.equal(response.statusCode, 201, response.body);
      return (response.json() as { id: string }).id;
    };

    test('envelope create: a number for title, a string for expire_in_days, a string for a recipient sequence', async () => {
      assertNamesField(await call('POST', `${API}/envelopes`, { title: 123 }), 'body/title');
      assertNamesField(
        await call('POST', `${API}/envelopes`, { title: 'x', expire_in_days: '7' }),
        'body/expire_in_days',
      );
      assertNamesField(
        await call('POST', `${API}/envelopes`, {
          title: 'x',
          recipients: [{ name: 'A', email: 'a@example.com', sequence: '1' }],
        }),
        'body/recipients/0/sequence',
      );
      assertNamesField(
        await call('POST', `${API}/envelopes`, { title: 'x', recipients: { name: 'A', email: 'a@example.com' } }),
        'body/recipients',
      );
    });

    test('envelope patch and recipient add', async () => {
      const id = await draft();
      assertNamesField(await call('PATCH', `${API}/envelopes/${id}`, { title: 123 }), 'body/title');
      assertNamesField(await call('PATCH', `${API}/envelopes/${id}`, { expire_in_days: '14' }), 'body/expire_in_days');
      assertNamesField(
        await call('POST', `${API}/envelopes/${id}/recipients`, {
          name: 'Ravi',
          email: 'ravi@example.com',
          sequence: '2',
        }),
        'body/sequence',
      );
      assertNamesField(
        await call('POST', `${API}/envelopes/${id}/recipients`, { name: 42, email: 'ravi@example.com' }),
        'body/name',
      );
      const unchanged = await call('GET', `${API}/envelopes/${id}`, undefined);
      assert.equal((unchanged.json() as { title: string }).title, 'Strict');
    });

    test('template instantiate: a string for send, a number for a field value', async () => {
      const url = `${API}/templates/${randomUUID()}/instantiate`;
      const headers = { 'idempotency-key': randomUUID() };
      const recipients = { buyer: { name: 'A', email: 'a@example.com' } };
      const bad = await t.server.request('POST', url, {
        key: t.account.key,
        headers,
        json: { recipients, send: 'true' },
      });
      assertNamesField(bad, 'body/send');
      const value = await t.server.request('POST', url, {
        key: t.account.key,
        headers: { 'idempotency-key': randomUUID() },
        json: { recipients, field_values: { price: 8500000 } },
      });
      assertNamesField(value, 'body/field_values/price');
    });

    test('legacy create: a string for sequence and for is_mail_required', async () => {
      const body = (recipient: Record<string, unknown>, company: Record<string, unknown> = {}) => ({
        companyDetails: { api_key: t.account.key, ...company },
        documentDetails: { doc_url: 'https://files.example.com/doc.pdf' },
        recipientDetail: [
          {
            name: 'Asha',
            email: 'asha@example.com',
            typeOfSignature: 'E-Signature',
            page_no: 1,
            x_cor: 100,
            y_cor: 100,
            ...recipient,
          },
        ],
      });
      assertNamesField(
        await call('POST', `${LEGACY}/document/recipients/create/`, body({ sequence: '1' })),
        'body/recipientDetail/0/sequence',
      );
      assertNamesField(
        await call('POST', `${LEGACY}/document/recipients/create/`, body({ x_cor: '100' })),
        'body/recipientDetail/0/x_cor',
      );
      assertNamesField(
        await call('POST', `${LEGACY}/document/recipients/create/`, body({}, { is_mail_required: 'false' })),
        'body/companyDetails/is_mail_required',
      );
      assertNamesField(
        await call('POST', `${LEGACY}/document/signing-links/`, {
          companyDetails: { api_key: t.account.key },
          document_id: '12',
        }),
        'body/document_id',
      );
    });

    test('query strings and path parameters are still coerced', async () => {
      await draft();
      const listed = await call('GET', `${API}/envelopes?limit=1`, undefined);
      assert.equal(listed.statusCode, 200, listed.body);
      assert.equal(
        (listed.json() as { data?: unknown[]; envelopes?: unknown[] }).data?.length ??
          (listed.json() as { envelopes: unknown[] }).envelopes.length,
        1,
      );
      assert.equal((await call('GET', `${API}/envelopes?limit=10`, undefined)).statusCode, 200);
      assertNamesField(await call('GET', `${API}/envelopes?limit=ten`, undefined), 'querystring/limit');
    });
  });
}
