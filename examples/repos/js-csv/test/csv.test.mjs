import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatCsv } from '../src/format.mjs';
import { parseCsv } from '../src/parse.mjs';

describe('formatCsv', () => {
  it('joins plain fields with commas', () => {
    assert.equal(formatCsv([['a', 'b'], ['c', 'd']]), 'a,b\nc,d');
  });
  it('quotes fields containing commas or quotes', () => {
    assert.equal(formatCsv([['Smith, Jane', 'said "hi"']]), '"Smith, Jane","said ""hi"""');
  });
});

describe('parseCsv', () => {
  it('splits plain fields', () => {
    assert.deepEqual(parseCsv('a,b\nc,d'), [['a', 'b'], ['c', 'd']]);
  });
  it('reads quoted fields', () => {
    assert.deepEqual(parseCsv('"Smith, Jane","said ""hi"""'), [['Smith, Jane', 'said "hi"']]);
  });
  it('round-trips any rows', () => {
    const rows = [['x', 'a,b', '"q"'], ['', 'plain', 'end,']];
    assert.deepEqual(parseCsv(formatCsv(rows)), rows);
  });
});
