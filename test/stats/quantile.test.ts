import { describe, expect, it } from 'vitest';
import { quantileSorted } from '../../src/domain/stats/index.js';

describe('quantileSorted (Hyndman & Fan type 7)', () => {
  it('matches numpy.percentile', () => {
    expect(quantileSorted([1, 2, 3], 0.95)).toBeCloseTo(2.9, 12);
    expect(quantileSorted([1, 2, 3, 4, 10], 0.25)).toBe(2);
    expect(quantileSorted([1, 2, 3, 4, 10], 0)).toBe(1);
    expect(quantileSorted([1, 2, 3, 4, 10], 1)).toBe(10);
    expect(quantileSorted([5], 0.5)).toBe(5);
  });

  it('rejects an empty sample and q outside [0, 1]', () => {
    expect(() => quantileSorted([], 0.5)).toThrow(RangeError);
    expect(() => quantileSorted([1], 1.5)).toThrow(RangeError);
  });
});
