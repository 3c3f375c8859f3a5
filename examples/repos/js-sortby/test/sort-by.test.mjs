import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sortBy } from '../src/sort-by.mjs';

const pluck = (items, key) => items.map((item) => item[key]);

describe('sortBy', () => {
  it('sorts numbers numerically', () => {
    assert.deepEqual(pluck(sortBy([{ n: 10 }, { n: 9 }, { n: 2 }], 'n'), 'n'), [2, 9, 10]);
  });
  it('sorts negative numbers', () => {
    assert.deepEqual(pluck(sortBy([{ n: -1 }, { n: 5 }, { n: -10 }], 'n'), 'n'), [-10, -1, 5]);
  });
  it('is stable', () => {
    const items = [{ n: 1, id: 'a' }, { n: 0, id: 'b' }, { n: 1, id: 'c' }];
    assert.deepEqual(pluck(sortBy(items, 'n'), 'id'), ['b', 'a', 'c']);
  });
  it('does not mutate its input', () => {
    const items = [{ n: 2 }, { n: 1 }];
    sortBy(items, 'n');
    assert.deepEqual(pluck(items, 'n'), [2, 1]);
  });
  it('sorts strings alphabetically', () => {
    const fruits = [{ name: 'cherry' }, { name: 'apple' }, { name: 'banana' }];
    assert.deepEqual(pluck(sortBy(fruits, 'name'), 'name'), ['apple', 'banana', 'cherry']);
  });
});
