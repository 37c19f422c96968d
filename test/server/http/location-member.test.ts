/** topLevelString (http/location.ts): the id a Location names, read off the answer's text. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { topLevelString } from '../../../server/http/location.js';

describe('topLevelString', () => {
  test('reads a leading member off the start of the text', () => {
    assert.equal(topLevelString('{"id":"0192-ab","title":"x"}', 'id'), '0192-ab');
  });

  test('finds the member elsewhere, and only at the top level', () => {
    assert.equal(topLevelString('{"title":"x","id":"later"}', 'id'), 'later');
    assert.equal(topLevelString('{"nested":{"id":"inner"},"id":"outer"}', 'id'), 'outer');
    assert.equal(topLevelString('{"nested":{"id":"inner"}}', 'id'), undefined);
  });

  test('a value with an escape is decoded, not cut at the escaped quote', () => {
    assert.equal(topLevelString('{"id":"a\\"b","x":1}', 'id'), 'a"b');
  });

  test('a member that is not a string, or text that is not an object, names nothing', () => {
    assert.equal(topLevelString('{"id":7}', 'id'), undefined);
    assert.equal(topLevelString('["id"]', 'id'), undefined);
    assert.equal(topLevelString('null', 'id'), undefined);
  });

  test('a member whose name only starts like the one asked for is not taken for it', () => {
    assert.equal(topLevelString('{"id_x":"no","id":"yes"}', 'id'), 'yes');
  });
});
