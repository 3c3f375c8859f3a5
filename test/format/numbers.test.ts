import { describe, expect, it } from 'vitest';
import { compactDuration, count, duration, pct, usd } from '../../src/core/format/index.js';
import * as cli from '../../src/cli/format.js';
import * as report from '../../src/features/report/format.js';

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

describe('duration', () => {
  it('writes the same units spaced for the reports and the web app, compact for the terminal', () => {
    const samples = [850, 1234, 59_000, 125_000, 3_540_000, 3_900_000, 7_260_000];
    expect(samples.map((ms) => duration(ms))).toEqual(['850 ms', '1.2 s', '59.0 s', '2 m 5 s', '59 m 0 s', '1 h 5 m', '2 h 1 m']);
    expect(samples.map(compactDuration)).toEqual(['850ms', '1.2s', '59.0s', '2m05s', '59m00s', '1h05m', '2h01m']);
  });

  it('carries a rounded-up second into the minute instead of writing 60 s', () => {
    expect(duration(119_600)).toBe('2 m 0 s');
    expect(compactDuration(119_600)).toBe('2m00s');
  });

  it('writes an unknown duration as each output writes its blanks', () => {
    expect([null, undefined, Number.NaN].map((ms) => duration(ms))).toEqual(['–', '–', '–']);
    expect(compactDuration(Number.POSITIVE_INFINITY)).toBe('-');
  });
});

it('the terminal and the reports print numbers with the same functions', () => {
  expect(cli.formatDuration).toBe(compactDuration);
  expect(report.duration).toBe(duration);
  expect(cli.usd).toBe(usd);
  expect(report.usd).toBe(usd);
  expect(cli.count).toBe(count);
  expect(report.count).toBe(count);
  expect(cli.pct).toBe(pct);
  expect(report.pct).toBe(pct);
});
