import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { slugify } from '../src/slugify.mjs';

describe('slugify', () => {
  it('lowercases words', () => {
    assert.equal(slugify('Hello World'), 'hello-world');
  });
  it('joins words with single dashes', () => {
    assert.equal(slugify('a  --  b'), 'a-b');
  });
  it('keeps digits', () => {
    assert.equal(slugify('Top 10 tips'), 'top-10-tips');
  });
  it('strips leading and trailing punctuation', () => {
    assert.equal(slugify('  Hello, World!  '), 'hello-world');
    assert.equal(slugify('--draft--'), 'draft');
  });
});
