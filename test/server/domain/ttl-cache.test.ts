import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TtlCache } from '../../../server/domain/ttl-cache.js';

describe('TtlCache', () => {
  test('entries expire after the TTL', () => {
    const cache = new TtlCache<string, number>(1000);
    cache.set('a', 1, 0);
    assert.equal(cache.get('a', 999), 1);
    assert.equal(cache.get('a', 1000), undefined);
  });

  test('deleteWhere drops what the predicate selects, e.g. one account after a key rotation', () => {
    const cache = new TtlCache<string, { account: string }>(1000);
    cache.set('k1', { account: 'A' }, 0);
    cache.set('k2', { account: 'B' }, 0);
    cache.deleteWhere((v) => v.account === 'A');
    assert.equal(cache.get('k1', 1), undefined);
    assert.deepEqual(cache.get('k2', 1), { account: 'B' });
  });

  test('a TTL of 0 disables it; the size is bounded', () => {
    const off = new TtlCache<string, number>(0);
    off.set('a', 1, 0);
    assert.equal(off.get('a', 0), undefined);
    const small = new TtlCache<number, number>(1000, 2);
    for (const n of [1, 2, 3]) small.set(n, n, 0);
    assert.equal(small.get(1, 0), undefined);
    assert.equal(small.get(3, 0), 3);
  });
});
