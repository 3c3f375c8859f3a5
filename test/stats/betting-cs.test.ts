import { describe, expect, it } from 'vitest';
import { bettingConfidenceSequence, mulberry32 } from '../../src/domain/stats/index.js';

describe('bettingConfidenceSequence', () => {
  it('is [0, 1] before any observation', () => {
    expect(bettingConfidenceSequence([])).toEqual({ mean: null, low: 0, high: 1, t: 0 });
  });

  it('narrows around the mean as observations arrive', () => {
    const xs = Array.from({ length: 200 }, (_, i) => (i % 4 === 0 ? 1 : 0));
    const early = bettingConfidenceSequence(xs.slice(0, 20));
    const late = bettingConfidenceSequence(xs);
    expect(late.mean).toBe(0.25);
    expect(late.low).toBeLessThan(0.25);
    expect(late.high).toBeGreaterThan(0.25);
    expect(late.high - late.low).toBeLessThan(early.high - early.low);
    expect(late.high - late.low).toBeLessThan(0.3);
  });

  it('pins a mean of 1 from below after a run of ones', () => {
    const cs = bettingConfidenceSequence(Array.from({ length: 40 }, () => 1));
    expect(cs.high).toBe(1);
    expect(cs.low).toBeGreaterThan(0.8);
  });

  it('covers the true mean at every time at once in at least 95% of sequences', () => {
    const random = mulberry32(11);
    const sequences = 300;
    let missed = 0;
    for (let s = 0; s < sequences; s++) {
      // Shares of 5 tasks passed per round, tasks with pass probabilities 0.1 … 0.9: mean 0.5.
      const xs = Array.from({ length: 80 }, () => [0.1, 0.3, 0.5, 0.7, 0.9].filter((p) => random() < p).length / 5);
      // The returned interval is the running intersection, so it misses 0.5 iff some time did.
      const cs = bettingConfidenceSequence(xs, { grid: 200 });
      if (cs.low > 0.5 || cs.high < 0.5) missed++;
    }
    expect(missed / sequences).toBeLessThanOrEqual(0.05);
  });

  it('rejects observations outside [0, 1]', () => {
    expect(() => bettingConfidenceSequence([0.5, 1.2])).toThrow(/\[0, 1\]/);
    expect(() => bettingConfidenceSequence([0.5], { grid: 1 })).toThrow(/grid/);
  });
});
