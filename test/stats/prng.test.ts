import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/domain/stats/index.js';

const draw = (seed: number, count: number): number[] => {
  const random = mulberry32(seed);
  return Array.from({ length: count }, () => random());
};

describe('mulberry32', () => {
  it('repeats its sequence for the same seed', () => {
    expect(draw(42, 100)).toEqual(draw(42, 100));
  });

  it('gives a different sequence for a different seed', () => {
    expect(draw(42, 10)).not.toEqual(draw(43, 10));
  });

  it('draws uniformly from [0, 1)', () => {
    const values = draw(7, 20_000);
    expect(Math.min(...values)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...values)).toBeLessThan(1);
    const mean = values.reduce((s, v) => s + v, 0) / values.length;
    expect(mean).toBeGreaterThan(0.49);
    expect(mean).toBeLessThan(0.51);
    const lowerHalf = values.filter((v) => v < 0.5).length / values.length;
    expect(lowerHalf).toBeGreaterThan(0.49);
    expect(lowerHalf).toBeLessThan(0.51);
  });

  it('rejects a non-finite seed', () => {
    expect(() => mulberry32(Number.NaN)).toThrow(RangeError);
  });
});
