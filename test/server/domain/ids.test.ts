/** Time-ordered ids (server/domain/ids.ts): UUID version 7 layout, uniqueness, and order by time. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { newId } from '../../../server/domain/ids.js';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('newId', () => {
  test('is a version 7 uuid whose first 48 bits are the time in milliseconds', () => {
    const before = Date.now();
    const id = newId();
    const after = Date.now();
    assert.match(id, V7);
    const ms = parseInt(id.replace(/-/g, '').slice(0, 12), 16);
    assert.ok(ms >= before && ms <= after, `${ms} within [${before}, ${after}]`);
    const at = Date.UTC(2030, 0, 1);
    assert.equal(newId(at).replace(/-/g, '').slice(0, 12), at.toString(16).padStart(12, '0'));
  });

  test('ids of the same millisecond are distinct and carry random bits in every random position', () => {
    const ids = Array.from({ length: 20_000 }, () => newId(1_700_000_000_000));
    assert.equal(new Set(ids).size, ids.length);
    for (const id of ids) assert.match(id, V7);
    // Each of the 19 random hex digits (rand_a, the variant digit's two low bits, rand_b) takes many values.
    const random = (id: string) => id.replace(/-/g, '').slice(13);
    for (const position of [0, 1, 2, 4, 5, 10, 18]) {
      assert.ok(
        new Set(ids.map((id) => random(id)[position])).size >= 15,
        `hex digit ${position} of the random part varies`,
      );
    }
    assert.deepEqual(
      new Set(ids.map((id) => random(id)[3])),
      new Set(['8', '9', 'a', 'b']),
      'the variant digit keeps two random bits',
    );
  });

  test('later milliseconds sort after earlier ones, as text (which is how the indexes compare them)', () => {
    const ids = [0, 1, 2, 1_000, 86_400_000].map((d) => newId(1_700_000_000_000 + d));
    assert.deepEqual([...ids].sort(), ids);
  });
});
