import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LruCache } from '../src/lru-cache.js';

describe('LruCache', () => {
  it('stores and returns values', () => {
    const cache = new LruCache<string, number>(2);
    cache.set('a', 1);
    assert.equal(cache.get('a'), 1);
    assert.equal(cache.get('missing'), undefined);
  });
  it('evicts the oldest entry beyond capacity', () => {
    const cache = new LruCache<string, number>(2).set('a', 1).set('b', 2).set('c', 3);
    assert.equal(cache.has('a'), false);
    assert.equal(cache.size, 2);
  });
  it('rejects a capacity below one', () => {
    assert.throws(() => new LruCache(0), RangeError);
  });
  it('get marks an entry as recently used', () => {
    const cache = new LruCache<string, number>(2).set('a', 1).set('b', 2);
    cache.get('a');
    cache.set('c', 3);
    assert.equal(cache.has('a'), true);
    assert.equal(cache.has('b'), false);
  });
});
