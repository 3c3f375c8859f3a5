import { describe, expect, it } from 'vitest';
import { wilson } from '../../src/domain/stats/index.js';

// Reference values: the Wilson score interval as published (e.g. Wikipedia's 81/263 example,
// Newcombe 1998), cross-checked with scipy.stats.norm for z.
describe('wilson', () => {
  it('gives [0, 0.2775] for 0 of 10 at 95%', () => {
    const i = wilson(0, 10);
    expect(i).not.toBeNull();
    expect(i?.rate).toBe(0);
    expect(i?.low).toBe(0);
    expect(i?.high).toBeCloseTo(0.277533, 5);
    expect(i?.n).toBe(10);
  });

  it('gives [0.2366, 0.7634] for 5 of 10, symmetric about one half', () => {
    const i = wilson(5, 10);
    expect(i?.rate).toBe(0.5);
    expect(i?.low).toBeCloseTo(0.236593, 5);
    expect(i?.high).toBeCloseTo(0.763407, 5);
  });

  it('gives [0.7225, 1] for 10 of 10, with the upper bound exactly 1', () => {
    const i = wilson(10, 10);
    expect(i?.low).toBeCloseTo(0.722467, 5);
    expect(i?.high).toBe(1);
  });

  it('gives [0.2553, 0.3662] for 81 of 263', () => {
    const i = wilson(81, 263);
    expect(i?.rate).toBeCloseTo(81 / 263, 12);
    expect(i?.low).toBeCloseTo(0.255289, 5);
    expect(i?.high).toBeCloseTo(0.36621, 5);
  });

  it('honours other confidence levels', () => {
    const ninety = wilson(8, 10, 0.9);
    const ninetyNine = wilson(8, 10, 0.99);
    expect(ninety?.low).toBeCloseTo(0.540793, 5);
    expect(ninety?.high).toBeCloseTo(0.931442, 5);
    expect(ninetyNine?.low).toBeCloseTo(0.400819, 5);
    expect(ninetyNine?.high).toBeCloseTo(0.959869, 5);
  });

  it('returns null, not NaN, when there are no trials', () => {
    expect(wilson(0, 0)).toBeNull();
  });

  it('rejects impossible counts and confidence levels', () => {
    expect(() => wilson(11, 10)).toThrow(RangeError);
    expect(() => wilson(-1, 10)).toThrow(RangeError);
    expect(() => wilson(1.5, 10)).toThrow(RangeError);
    expect(() => wilson(1, 10, 1)).toThrow(RangeError);
    expect(() => wilson(1, 10, 0)).toThrow(RangeError);
  });
});
