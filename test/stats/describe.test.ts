import { describe as group, expect, it } from 'vitest';
import { describe } from '../../src/domain/stats/index.js';

group('describe', () => {
  it('summarises a sample with sample sd and a type-7 p95', () => {
    const d = describe([10, 1, 4, 3, 2]);
    expect(d).toEqual({
      n: 5,
      mean: 4,
      median: 3,
      sd: expect.closeTo(Math.sqrt(12.5), 12) as number,
      p95: expect.closeTo(8.8, 12) as number, // numpy.percentile([1,2,3,4,10], 95)
      min: 1,
      max: 10,
    });
  });

  it('interpolates the median of an even-sized sample', () => {
    expect(describe([4, 1, 3, 2])?.median).toBe(2.5);
  });

  it('reports sd as null for a single value rather than 0 or NaN', () => {
    expect(describe([7])).toEqual({ n: 1, mean: 7, median: 7, sd: null, p95: 7, min: 7, max: 7 });
  });

  it('returns null for an empty sample', () => {
    expect(describe([])).toBeNull();
  });

  it('rejects non-finite values', () => {
    expect(() => describe([1, Number.NaN])).toThrow(RangeError);
    expect(() => describe([Number.POSITIVE_INFINITY])).toThrow(RangeError);
  });

  it('does not reorder the caller’s array', () => {
    const values = [3, 1, 2];
    describe(values);
    expect(values).toEqual([3, 1, 2]);
  });
});
