import { describe, expect, it } from 'vitest';
import { normalQuantile, twoSidedZ } from '../../src/domain/stats/index.js';

describe('normalQuantile', () => {
  it('matches standard normal quantiles across the body and both tails', () => {
    expect(normalQuantile(0.5)).toBeCloseTo(0, 9);
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 6);
    expect(normalQuantile(0.95)).toBeCloseTo(1.644854, 6);
    expect(normalQuantile(0.001)).toBeCloseTo(-3.090232, 6);
    expect(normalQuantile(1e-10)).toBeCloseTo(-6.361341, 5);
    expect(normalQuantile(0.999)).toBeCloseTo(3.090232, 6);
  });

  it('gives the two-sided critical value for a confidence level', () => {
    expect(twoSidedZ(0.95)).toBeCloseTo(1.959964, 6);
    expect(twoSidedZ(0.99)).toBeCloseTo(2.575829, 6);
  });

  it('rejects probabilities outside (0, 1)', () => {
    expect(() => normalQuantile(0)).toThrow(RangeError);
    expect(() => normalQuantile(1)).toThrow(RangeError);
    expect(() => normalQuantile(Number.NaN)).toThrow(RangeError);
  });
});
