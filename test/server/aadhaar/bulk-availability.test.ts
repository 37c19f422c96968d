/**
 * A bulk send whose rows make Aadhaar signers is refused when validated (422 invalid_rows naming the row and
 * recipient) where Aadhaar eSign is not available for the data, not left to fail row by row in the fan-out.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DATABASES } from '../../support/databases.js';
import { API, useTestServer } from '../../support/server.js';
import { makeSource, row } from '../bulk/helpers.js';

for (const kind of DATABASES) {
  describe(`bulk rows with Aadhaar signers on ${kind}, eSign not configured`, () => {
    const t = useTestServer(kind);

    test("POST /bulk-sends/validate: 422 invalid_rows with aadhaar_not_configured at the row's recipient", async () => {
      const source = await makeSource(t.server, t.account.key);
      const aadhaarRow = row(2, {
        recipients: [
          { name: 'Customer 2', email: 'c2@example.com', signature_method: 'aadhaar' },
          { name: 'Witness 2', email: 'w2@example.com' },
        ],
      });
      const response = await t.server.request('POST', `${API}/bulk-sends/validate`, {
        key: t.account.key,
        json: { source_envelope_id: source.id, rows: [row(1), aadhaarRow] },
      });
      assert.equal(response.statusCode, 422, response.body);
      assert.equal(response.json().code, 'invalid_rows');
      const items = response
        .json()
        .errors.map((e: { index: number; path: string; code: string }) => [e.index, e.path, e.code]);
      assert.deepEqual(items, [[1, '/rows/1/recipients/0/signature_method', 'aadhaar_not_configured']]);
    });
  });
}
