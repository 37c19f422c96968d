import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { indexObjectStream } from '../../pdf/object-streams.js';

const index = (header: string, n: number) => {
  const data = Buffer.from(`${header}<<>>`, 'latin1');
  return indexObjectStream(data, n, header.length).pairs;
};

describe('object stream header (issue 30: read without tokens when plain)', () => {
  test('plain pairs, any whitespace', () => {
    assert.deepEqual(index('10 0 11 5\n12 17 ', 3), [
      [10, 0],
      [11, 5],
      [12, 17],
    ]);
    assert.deepEqual(index('\r\n 7\t0\f8 4 ', 2), [
      [7, 0],
      [8, 4],
    ]);
  });

  test('fewer pairs than /N, or more: only whole pairs up to /N', () => {
    assert.deepEqual(index('1 0 2 3 4', 5), [
      [1, 0],
      [2, 3],
    ]);
    assert.deepEqual(index('1 0 2 3 4 5', 1), [[1, 0]]);
  });

  test('what a writer should not write is read as the lexer reads it', () => {
    assert.deepEqual(index('1 0 %comment\n2 3 ', 2), [
      [1, 0],
      [2, 3],
    ]);
    assert.deepEqual(index('1 0 +2 3 ', 2), [
      [1, 0],
      [2, 3],
    ]);
    assert.deepEqual(index('1 0 (x) 3 ', 2), [[1, 0]]);
  });
});
