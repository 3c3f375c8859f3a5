import { describe, expect, it } from 'vitest';
import { count, pct, usd } from '../../src/format/index.js';
import * as cli from '../../src/cli/format.js';
import * as report from '../../src/report/format.js';

describe('usd', () => {
  it('prints two decimals from a dollar up and up to four below, never a long tail of zeros', () => {
    expect([12.345, 1, 0.5, 0.125, 0.01, 0.0019, 0.00123456, 0].map(usd)).toEqual([
      '$12.35',
      '$1.00',
      '$0.50',
      '$0.125',
      '$0.01',
      '$0.0019',
      '$0.0012',
      '$0.00',
    ]);
  });

  it('rounds up into dollars and says when a cost is too small to print', () => {
    expect(usd(0.99996)).toBe('$1.00');
    expect(usd(0.00001)).toBe('<$0.0001');
    expect(usd(-0.5)).toBe('-$0.50');
  });

  it('prints a missing cost as a dash, never as $0', () => {
    expect([null, undefined, Number.NaN].map(usd)).toEqual(['–', '–', '–']);
  });
});

describe('count', () => {
  it('keeps small counts whole and gives larger ones one decimal and a unit', () => {
    expect([0, 7.4, 999, 1000, 1234, 12_345, 123_456, 2_500_000, 3e9].map(count)).toEqual(['0', '7', '999', '1.0k', '1.2k', '12.3k', '123.5k', '2.5M', '3.0B']);
  });

  it('moves to the next unit instead of printing 1000.0k', () => {
    expect(count(999_960)).toBe('1.0M');
    expect(count(999.6)).toBe('1.0k');
    expect(count(-12_345)).toBe('-12.3k');
    expect(count(null)).toBe('–');
  });
});

describe('pct', () => {
  it('prints a rate as a percentage with the digits asked for', () => {
    expect(pct(0.8237)).toBe('82%');
    expect(pct(0.8237, 1)).toBe('82.4%');
    expect(pct(null)).toBe('–');
  });
});

it('the terminal and the reports print numbers with the same functions', () => {
  expect(cli.usd).toBe(usd);
  expect(report.usd).toBe(usd);
  expect(cli.count).toBe(count);
  expect(report.count).toBe(count);
  expect(cli.pct).toBe(pct);
  expect(report.pct).toBe(pct);
});
